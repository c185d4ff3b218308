package termtext_test

import (
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/termtext"
)

// The deadline passed after the person answered one question; the
// recommended option was applied to the other. A header that tries to
// clear the screen is shown as what it is.
func ExampleSummary() {
	f := &askuser.Form{Questions: []askuser.Question{
		{ID: "env", Header: "Env", Options: []askuser.Option{{Value: "staging", Label: "staging"}, {Value: "production", Label: "production"}}},
		{ID: "size", Header: "Size\x1b[2J", Options: []askuser.Option{{Value: "small", Label: "small", Default: true}}},
	}}
	o := &askuser.Outcome{Form: f, Reason: askuser.ReasonDeadline, Status: askuser.StatusTimedOut, Answers: []askuser.FinalAnswer{
		{QuestionID: "env", Selected: []string{"production"}, By: askuser.ByUser},
		{QuestionID: "size", Selected: []string{"small"}, By: askuser.ByTimeout},
	}}
	fmt.Println(termtext.Summary(o, termtext.Words{}))
	o.Reason, o.Status, o.Answers = askuser.ReasonDismissed, askuser.StatusCancelled, nil
	fmt.Println(termtext.Summary(o, termtext.Words{Dismissed: "Cancelled"}))
	// Output:
	// Time is up: Env → production (your answer), Size\x1b[2J → small (recommended, applied at the deadline)
	// Cancelled; no answer was given.
}
