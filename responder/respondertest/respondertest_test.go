package respondertest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/secret"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answerAll answers every question — the first option, "main", or a
// secret value — and submits, as a person who takes the first of
// everything would.
func answerAll(a *askuser.Ask) error {
	for _, q := range a.Form().Questions {
		ans := askuser.Answer{QuestionID: q.ID}
		switch {
		case q.Kind == askuser.KindSecret:
			ans.Secret = secret.FromString("correct-horse-battery-staple")
		case responder.Sealed(&q) && q.Kind == askuser.KindChoice:
			ans.Secret = responder.ChoiceSecret(&q, []string{q.Options[0].Value}, "")
		case responder.Sealed(&q):
			ans.Secret = secret.FromString("hunter2-but-longer")
		case q.Kind == askuser.KindText:
			ans.Other = "main"
		default:
			ans.Selected = []string{q.Options[0].Value}
		}
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
}

// queue shows one ask at a time, as a terminal does: the others wait their
// turn, and leave the queue when their context ends.
type queue struct{ turn chan struct{} }

func (q queue) Respond(ctx context.Context, a *askuser.Ask) error {
	select {
	case q.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-q.turn }()
	<-ctx.Done()
	return ctx.Err()
}

// good are responders that keep the contract.
var good = []struct {
	name string
	new  func() askuser.Responder
	opts respondertest.Options
}{
	{"scripted, nobody answers", func() askuser.Responder { return scripted.New() }, respondertest.Options{}},
	{"scripted, declines", func() askuser.Responder {
		return scripted.New(scripted.Step{Delay: 50 * time.Millisecond, End: scripted.EndDecline})
	}, respondertest.Options{}},
	{"answers everything", func() askuser.Responder {
		return askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error { return answerAll(a) })
	}, respondertest.Options{}},
	{"queues asks", func() askuser.Responder { return queue{make(chan struct{}, 1)} }, respondertest.Options{}},
	{"auto, presence ignored", func() askuser.Responder { return auto.New() }, respondertest.Options{IgnorePresence: true}},
	{"takes approvals, nobody decides", func() askuser.Responder { return takes{queue{make(chan struct{}, 1)}} }, respondertest.Options{}},
	{"takes approvals, denies them", func() askuser.Responder {
		return takes{askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			if a.Form().Approval == nil {
				<-ctx.Done()
				return ctx.Err()
			}
			if err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.DenyOnce}, Note: "not today"}); err != nil {
				return err
			}
			return a.Submit()
		})}
	}, respondertest.Options{}},
}

// takes declares that the responder it wraps takes approvals.
type takes struct{ askuser.Responder }

func (takes) CanTakeApprovals() bool { return true }

// flips declares it takes approvals every other time it is asked.
type flips struct {
	askuser.Responder
	n *atomic.Int32
}

func (f flips) CanTakeApprovals() bool { return f.n.Add(1)%2 == 0 }

func TestGoodResponders(t *testing.T) {
	for _, tt := range good {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Synctest = true
			respondertest.Run(t, func(*testing.T) askuser.Responder { return tt.new() }, &opts)
		})
	}
}

func TestGoodRespondersCheck(t *testing.T) {
	for _, tt := range good {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := tt.opts
				opts.Synctest = true
				if err := respondertest.Check(tt.new, &opts); err != nil {
					t.Errorf("Check failed a responder that keeps the contract:\n%v", err)
				}
			})
		})
	}
}

// TestRealTime runs the cases on the real clock, with their one-second
// deadlines, serially and in parallel.
func TestRealTime(t *testing.T) {
	t.Run("parallel", func(t *testing.T) {
		respondertest.Run(t, func(*testing.T) askuser.Responder { return scripted.New() }, nil)
	})
	t.Run("serial", func(t *testing.T) {
		respondertest.Run(t, func(*testing.T) askuser.Responder {
			return scripted.New(scripted.Step{Delay: 50 * time.Millisecond, End: scripted.EndDecline})
		}, &respondertest.Options{Serial: true})
	})
}

// failedCases lists the cases an error from Check names, in order.
func failedCases(err error) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^respondertest: ([a-z-]+): `).FindAllStringSubmatch(err.Error(), -1) {
		names = append(names, m[1])
	}
	return names
}

// checkFails runs Check in a bubble and returns its error.
func checkFails(t *testing.T, newResponder func() askuser.Responder, opts respondertest.Options) error {
	t.Helper()
	var err error
	synctest.Test(t, func(t *testing.T) {
		opts.Synctest = true
		err = respondertest.Check(newResponder, &opts)
	})
	return err
}

// TestBadResponders: each way of breaking the contract fails the case
// whose rule it breaks, and no other.
func TestBadResponders(t *testing.T) {
	fn := func(f func(ctx context.Context, a *askuser.Ask) error) func() askuser.Responder {
		return func() askuser.Responder { return askuser.ResponderFunc(f) }
	}
	bad := []struct {
		name string
		new  func() askuser.Responder
		want []string // the cases that must fail, in order
	}{
		{"never ends an ask", fn(func(context.Context, *askuser.Ask) error { return nil }),
			[]string{"every-kind", "secret-forms"}},
		{"panics", fn(func(context.Context, *askuser.Ask) error { panic("boom") }),
			[]string{"every-kind", "secret-forms", "ended-before-start"}},
		{"ignores its context", fn(func(context.Context, *askuser.Ask) error {
			time.Sleep(time.Hour)
			return nil
		}), []string{"every-kind", "secret-forms", "secret-not-in-errors", "deadline", "superseded", "caller-gone", "ended-before-start", "several-pending", "form-unchanged", "ends-once"}},
		{"fails on its way out", fn(func(ctx context.Context, a *askuser.Ask) error {
			<-ctx.Done()
			return errors.New("write /dev/tty: broken pipe")
		}), []string{"deadline", "superseded", "caller-gone", "ended-before-start", "several-pending"}},
		{"ends twice", fn(func(ctx context.Context, a *askuser.Ask) error {
			if err := a.Decline(); err != nil {
				return err
			}
			return a.Cancel("")
		}), []string{"ends-once"}},
		{"reports after its ending", fn(func(ctx context.Context, a *askuser.Ask) error {
			if err := answerAll(a); err != nil {
				return err
			}
			return answerAll(a)
		}), []string{"ends-once"}},
		{"serializes asks", func() askuser.Responder {
			one := make(chan struct{}, 1)
			return askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
				one <- struct{}{} // waits its turn whatever its context says
				defer func() { <-one }()
				<-ctx.Done()
				return ctx.Err()
			})
		}, []string{"several-pending"}},
		{"modifies the form", fn(func(ctx context.Context, a *askuser.Ask) error {
			a.Form().Questions[0].Text += " (edited)"
			return a.Decline()
		}), []string{"form-unchanged"}},
		{"puts a secret in its error", fn(func(ctx context.Context, a *askuser.Ask) error {
			q := a.Form().Questions[len(a.Form().Questions)-1]
			if !responder.Sealed(&q) || q.Kind != askuser.KindChoice {
				return a.Decline()
			}
			v := responder.ChoiceSecret(&q, []string{q.Options[0].Value}, "")
			picked := string(v.Reveal())
			if err := a.Report(askuser.Answer{QuestionID: q.ID, Secret: v}); err != nil {
				return err
			}
			return fmt.Errorf("the card for %q could not be drawn", picked)
		}), []string{"secret-forms", "secret-not-in-errors"}},
		{"approves by itself", func() askuser.Responder {
			return takes{askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error { return answerAll(a) })}
		}, []string{"approval-not-approved", "approval-superseded"}},
		{"takes approvals but chokes on them", func() askuser.Responder {
			return takes{askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
				if a.Form().Questions[0].Kind == askuser.KindApproval {
					panic("unknown kind of question")
				}
				return a.Decline()
			})}
		}, []string{"ended-before-start", "approval-forms"}},
		{"says it takes approvals, then that it does not", func() askuser.Responder {
			return flips{askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error { return a.Decline() }), new(atomic.Int32)}
		}, []string{"approval-not-taken"}},
		{"retries a refused report", fn(func(ctx context.Context, a *askuser.Ask) error {
			for range 3600 {
				if err := answerAll(a); err == nil {
					return nil
				}
				time.Sleep(time.Second)
			}
			return nil
		}), []string{"ended-before-start"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := checkFails(t, tt.new, respondertest.Options{})
			if err == nil {
				t.Fatal("Check passed a responder that breaks the contract")
			}
			if d := cmp.Diff(tt.want, failedCases(err)); d != "" {
				t.Errorf("failed cases (-want +got):\n%s\nCheck said:\n%v", d, err)
			}
			if strings.Contains(err.Error(), "respondertest.probe") {
				t.Errorf("a failure names the kit's own wrapper:\n%v", err)
			}
			if errors.Is(err, respondertest.ErrNotReached) {
				t.Errorf("Check says nothing was reached:\n%v", err)
			}
		})
	}
}

// TestNamesTheResponder: a fault names the responder under test, never
// the kit's wrapper.
func TestNamesTheResponder(t *testing.T) {
	err := checkFails(t, func() askuser.Responder {
		return scripted.New(scripted.Step{Err: errors.New("boom")})
	}, respondertest.Options{})
	if err == nil || !strings.Contains(err.Error(), "responder script failed: boom") {
		t.Errorf("the fault does not name the scripted responder:\n%v", err)
	}
	err = checkFails(t, func() askuser.Responder {
		return askuser.ResponderFunc(func(context.Context, *askuser.Ask) error { return errors.New("boom") })
	}, respondertest.Options{})
	if err == nil || !strings.Contains(err.Error(), "responder askuser.ResponderFunc failed: boom") {
		t.Errorf("the fault does not name the responder's type:\n%v", err)
	}
}

// never is nobody, who says so before any ask.
type never struct{ askuser.Responder }

func (never) Reachable(context.Context, string) bool { return false }

// unwrapped hides nothing of the responder it wraps.
type unwrapped struct{ askuser.Responder }

func (u unwrapped) Unwrap() askuser.Responder { return u.Responder }

func TestNothingReached(t *testing.T) {
	for _, tt := range []struct {
		name string
		new  func() askuser.Responder
	}{
		{"auto", func() askuser.Responder { return auto.New() }},
		{"never reachable", func() askuser.Responder { return never{scripted.New()} }},
		{"never reachable, wrapped", func() askuser.Responder { return unwrapped{never{scripted.New()}} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkFails(t, tt.new, respondertest.Options{})
			if !errors.Is(err, respondertest.ErrNotReached) || len(failedCases(err)) > 0 {
				t.Errorf("Check = %v, want only ErrNotReached", err)
			}
			// Ignoring presence, Respond is checked all the same.
			if err := checkFails(t, tt.new, respondertest.Options{IgnorePresence: true}); err != nil {
				t.Errorf("with IgnorePresence: %v", err)
			}
		})
	}
}

// TestSerializingRealTime: on the real clock, a responder that holds a
// mutex for the whole of an ask fails the several-pending case.
func TestSerializingRealTime(t *testing.T) {
	err := respondertest.Check(func() askuser.Responder {
		var mu sync.Mutex
		return askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			mu.Lock()
			defer mu.Unlock()
			<-ctx.Done()
			return ctx.Err()
		})
	}, &respondertest.Options{Grace: 300 * time.Millisecond})
	if d := cmp.Diff([]string{"several-pending"}, failedCases(err)); d != "" {
		t.Errorf("failed cases (-want +got):\n%s\nCheck said:\n%v", d, err)
	}
}

func TestCasesAreDocumented(t *testing.T) {
	var names []string
	for _, c := range respondertest.Cases() {
		if c.Name == "" || !strings.HasSuffix(c.Rule, ".") || strings.Count(c.Rule, ". ") > 0 {
			t.Errorf("case %q: the rule is not one sentence: %q", c.Name, c.Rule)
		}
		names = append(names, c.Name)
	}
	if u := slices.Compact(slices.Sorted(slices.Values(names))); len(u) != len(names) {
		t.Errorf("case names repeat: %v", names)
	}
}

// A responder that declines every ask at once keeps the contract; the cases
// that need an ask to wait (for its deadline, say) are skipped.
func ExampleCheck() {
	decline := askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
		return a.Decline()
	})
	err := respondertest.Check(func() askuser.Responder { return decline }, nil)
	fmt.Println(err)
	// Output: <nil>
}

// TestRunReports runs Run on responders that break the contract, in a
// child process (Run fails the test it is given), and reads what it says.
func TestRunReports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	for _, tt := range []struct {
		helper string
		want   []string
	}{
		{"never-reachable", []string{
			"--- SKIP: TestHelperRun/every-kind",
			"no ask of this case reached Respond",
			respondertest.ErrNotReached.Error(),
		}},
		{"blocks-for-ever", []string{
			"--- FAIL: TestHelperRun/deadline",
			"respondertest: deadline: A responder returns promptly once its context ends at the form's deadline",
			"single choice: Respond had not returned 3s after the ask ended (deadline)",
		}},
		{"leaves-a-goroutine", []string{
			"--- FAIL: TestHelperRun/every-kind",
			"a goroutine of the responder was still blocked when the case ended",
		}},
		{"ends-twice", []string{
			"--- FAIL: TestHelperRun/ends-once",
			"--- PASS: TestHelperRun/every-kind",
			"--- SKIP: TestHelperRun/deadline",
			"then made another report or ending, which was refused",
		}},
	} {
		t.Run(tt.helper, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRun$", "-test.v")
			cmd.Env = append(os.Environ(), "RESPONDERTEST_HELPER="+tt.helper)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Errorf("Run passed; it said:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("Run did not say %q; it said:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "respondertest.probe") {
				t.Errorf("Run names the kit's own wrapper:\n%s", out)
			}
		})
	}
}

// TestHelperRun is TestRunReports's child.
func TestHelperRun(t *testing.T) {
	var r func() askuser.Responder
	switch os.Getenv("RESPONDERTEST_HELPER") {
	case "":
		t.Skip("run by TestRunReports")
	case "never-reachable":
		r = func() askuser.Responder { return never{scripted.New()} }
	case "blocks-for-ever":
		r = func() askuser.Responder {
			return askuser.ResponderFunc(func(context.Context, *askuser.Ask) error {
				<-make(chan struct{})
				return nil
			})
		}
	case "leaves-a-goroutine":
		r = func() askuser.Responder {
			return askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
				go func() { <-make(chan struct{}) }()
				return a.Decline()
			})
		}
	case "ends-twice":
		r = func() askuser.Responder {
			return askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
				if err := a.Decline(); err != nil {
					return err
				}
				return a.Decline()
			})
		}
	}
	respondertest.Run(t, func(*testing.T) askuser.Responder { return r() }, &respondertest.Options{Synctest: true})
}
