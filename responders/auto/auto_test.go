package auto_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/auto"
)

// TestConformance checks auto's Respond. With auto's presence asked first
// nothing reaches Respond, which the suite reports; a responder that hands
// asks to auto without asking its presence does call it, so the suite runs
// again with presence ignored.
func TestConformance(t *testing.T) {
	if err := respondertest.Check(func() askuser.Responder { return auto.New() }, nil); !errors.Is(err, respondertest.ErrNotReached) {
		t.Errorf("with presence, Check = %v, want ErrNotReached", err)
	}
	respondertest.Run(t, func(*testing.T) askuser.Responder { return auto.New() }, &respondertest.Options{IgnorePresence: true, Synctest: true})
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
