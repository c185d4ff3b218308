package stdio_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/stdio"
)

// The answers come from any io.Reader: here two lines, the second option
// of the first question and an empty line that takes the recommended
// options of the second.
func Example() {
	answers := strings.NewReader("2\n\n")
	var screen strings.Builder
	r := stdio.New(answers, &screen, nil)
	o := &askuser.Orchestrator{Responder: r}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "demo", Arguments: []byte(`{
		"questions": [
			{"id": "env", "header": "Env", "question": "Where should the release go first?",
			 "options": [
				{"label": "staging", "description": "Run the smoke tests there", "default": true},
				{"label": "production", "description": "Behind the feature flag"}]},
			{"id": "checks", "header": "Checks", "question": "Which checks run first?", "multi_select": true, "allow_other": false,
			 "options": [
				{"label": "unit", "description": "About 2 minutes", "default": true},
				{"label": "integration", "description": "Against the staging database", "default": true},
				{"label": "load", "description": "10 minutes"}]}
		]}`)})
	r.Close() // waits until the summary is printed

	// A pipe echoes no answer. (The prompts end in a space, trimmed here.)
	for _, line := range strings.Split(strings.TrimSpace(screen.String()), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", out.Result)
	// Output:
	// [1/2] Env
	// Where should the release go first?
	//   1) staging (recommended)
	//      Run the smoke tests there
	//   2) production
	//      Behind the feature flag
	//   3) Something else
	//   (a line "note: ..." adds a note to your answer; "note N: ..." a note on option N)
	// Pick 1-3 (Enter for 1):
	//
	// [2/2] Checks
	// Which checks run first?
	//   1) unit (recommended)
	//      About 2 minutes
	//   2) integration (recommended)
	//      Against the staging database
	//   3) load
	//      10 minutes
	//   (a line "note: ..." adds a note to your answer; "note N: ..." a note on option N)
	// Pick one or more of 1-3, separated by commas (Enter for 1,2):
	// Submitted: Env → production, Checks → unit + integration
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"checks","selected":["unit","integration"],"other_text":null}]}
}
