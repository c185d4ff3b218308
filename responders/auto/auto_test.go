package auto_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/auto"
)

func TestConformance(t *testing.T) {
	respondertest.Run(t, func(*testing.T) askuser.Responder { return auto.New() })
}

// With nobody there, a call of choice questions is answered at once with
// its declared defaults; a call with a text question is declined.
func Example() {
	o := &askuser.Orchestrator{Responder: auto.New()}
	for _, args := range []string{
		`{"questions":[{"header":"Env","question":"Where?","options":[{"label":"staging","description":"safe"},{"label":"production","description":"live"}]}]}`,
		`{"questions":[{"kind":"text","header":"Branch","question":"Which branch name?"}]}`,
	} {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(args)})
		if err != nil {
			panic(err)
		}
		fmt.Println(string(out.Result))
	}
	// Output:
	// {"status":"answered","answered_by":"unattended","answers":[{"id":"question_1","selected":["staging"],"other_text":null}]}
	// {"status":"declined","answered_by":"unattended","answers":[]}
}
