package tui_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/tui"
)

// The keys come from any io.Reader as a terminal sends them: here "2",
// which picks the second option, confirms the tab and moves to the review
// tab, and Enter ("\r"), which submits. The screen goes to a buffer; what
// follows the last exit from the alternate screen is what the person sees
// once the screen is given back.
func Example() {
	keys := strings.NewReader("2\r")
	var screen strings.Builder
	r := tui.New(keys, &screen, &tui.Options{Width: 80, Height: 20})
	o := &askuser.Orchestrator{Responder: r}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "demo", Arguments: []byte(`{
		"questions": [
			{"id": "env", "header": "Env", "question": "Where should the release go first?",
			 "options": [
				{"label": "staging", "description": "Run the smoke tests there", "default": true},
				{"label": "production", "description": "Behind the feature flag"}]}
		]}`)})
	r.Close() // waits until the screen is given back
	if err != nil {
		fmt.Println(err)
		return
	}
	s := screen.String()
	fmt.Print(ansi.Strip(s[strings.LastIndex(s, ansi.ResetModeAltScreenSaveCursor):]))
	fmt.Printf("%s\n", out.Result)
	// Output:
	// Submitted: Env → production
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}
}
