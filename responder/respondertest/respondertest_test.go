package respondertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
)

func TestAuto(t *testing.T) {
	respondertest.Run(t, func(*testing.T) askuser.Responder { return auto.New() })
}

func TestScriptedWaitingForTheDeadline(t *testing.T) {
	respondertest.Run(t, func(*testing.T) askuser.Responder { return scripted.New() })
}

func TestScriptedDeclining(t *testing.T) {
	respondertest.Run(t, func(*testing.T) askuser.Responder {
		return scripted.New(scripted.Step{Delay: 50 * time.Millisecond, End: scripted.EndDecline})
	})
}

// TestSuiteCatchesBadResponders: the suite is not a check that cannot
// fail.
func TestSuiteCatchesBadResponders(t *testing.T) {
	old := respondertest.Grace
	respondertest.Grace = 300 * time.Millisecond
	defer func() { respondertest.Grace = old }()

	bad := []struct {
		name string
		r    askuser.Responder
		want []string // cases that must fail
	}{
		{"returns without ending", askuser.ResponderFunc(func(context.Context, *askuser.Ask) error { return nil }),
			[]string{"every-kind", "deadline", "superseded", "several-pending", "outcome"}},
		{"panics", askuser.ResponderFunc(func(context.Context, *askuser.Ask) error { panic("boom") }),
			[]string{"every-kind", "deadline", "several-pending", "outcome"}},
		{"ignores its context", askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			time.Sleep(2 * time.Second)
			return ctx.Err()
		}), []string{"deadline", "superseded", "caller-gone"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := respondertest.Check(func() askuser.Responder { return tt.r })
			if err == nil {
				t.Fatal("Check passed a responder that breaks the contract")
			}
			for _, name := range tt.want {
				if !strings.Contains(err.Error(), name+": ") {
					t.Errorf("case %s did not fail; Check said:\n%v", name, err)
				}
			}
		})
	}
	time.Sleep(2 * time.Second) // let the sleeping responders return
}
