// Package respondertest checks that an [askuser.Responder] keeps its side of
// askuser's contract, as testing/slogtest does for slog handlers. It puts
// forms of every kind to the responder through an [askuser.Orchestrator],
// ends them in every way that does not need a person — at the deadline, by
// superseding them, by the caller going away, before the responder has even
// looked — and checks what the responder does: that it ends each ask once
// and without a fault, returns promptly once its context ends, lets several
// asks be pending at once, leaves the form as it was given, and puts no
// secret value in its errors. Each case is one rule of one sentence (see
// [Cases]). The kit cannot play the person by itself, so a case that needs
// something the responder never did (reach Respond at all, end an ask
// itself, hand over a secret) is skipped with the reason, and [Run] and
// [Check] fail when no case reached Respond. A responder driven by a person
// through a channel of its own (a chat, a mail) can give the kit a way to
// act as that person (Options.Person: signed clicks, followed links): the
// person cases then check what the responder does with a person's answer,
// approval and denial, ends-once what it does after the person's answer,
// and, with a [Filler] (a person who can answer a whole form, secrets
// included, through the path the responder gives for them), the secret
// cases what it does with the person's secrets. Run returns the cases it
// skipped, so that a test can hold that every case ran.
//
// Approvals (approvaltool.Form) get cases of their own. A responder that
// does not declare it can take them (askuser.ApprovalCapable) must never be
// handed one. One that does is given approvals of every risk, and since the
// kit plays no person, none of them may end approved: a responder that
// approves by itself — picking the first option, taking a draft, treating
// the deadline as consent — fails, while one that leaves them to the
// deadline, or ends them as denied or dismissed because its person (or
// script) did so, passes. A responder author runs it from a test:
//
//	func TestConformance(t *testing.T) {
//		respondertest.Run(t, func(t *testing.T) askuser.Responder {
//			r := myresponder.New()
//			t.Cleanup(func() { r.Close() })
//			return r
//		}, &respondertest.Options{Synctest: true})
//	}
package respondertest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
)

// Options configures Run and Check. A nil *Options, and the zero Options,
// run every case in real time, in parallel, with the default grace.
type Options struct {
	// Grace is how long, after an ask has ended, the kit waits for Respond
	// to return before it reports the responder as not returning (zero:
	// 3 s). In a synctest bubble it is measured on the bubble's clock.
	Grace time.Duration

	// Synctest runs the cases in testing/synctest bubbles, where time
	// passes only while every goroutine is blocked: the kit then uses
	// deadlines of minutes, which pass in microseconds, and waits for the
	// responder to settle instead of sleeping. Set it for a responder that
	// does no real I/O (an io.Pipe is fine; a terminal on a pty, a socket
	// or a process is not, and neither is an input that never blocks, which
	// stops the bubble's clock). Run makes a bubble per case. Check must
	// then be called inside a bubble (in synctest.Test) and runs the cases
	// there one after another. A Respond that blocks for ever on something
	// of the bubble is reported (Run) or deadlocks the bubble (Check); one
	// that blocks on a sync.Mutex held for ever stops the bubble's clock,
	// and the test times out.
	Synctest bool

	// IgnorePresence has the kit answer Reachable with true for every
	// session, so that Respond is called even where the responder's
	// Presence reports nobody there. A person can leave between Reachable
	// and Respond, so Respond must keep the contract then too; set it for
	// a responder that is never reachable in a test (one that reports
	// nobody, or one reachable only while a person is connected), which
	// would otherwise be checked by no case.
	IgnorePresence bool

	// Serial runs the cases one after another. By default they run at
	// the same time, each with a responder of its own from newResponder;
	// set Serial when those responders share something only one can use at
	// a time (one terminal). The asks within a case are always pending at
	// the same time.
	Serial bool

	// Person, when set, gives the kit a way to act as the person through
	// the responder's own channel, for the responder newResponder made
	// (see Person): the cases that need a person's answer then run against
	// it, instead of being skipped.
	Person func(r askuser.Responder) Person
}

func (o *Options) resolve() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Grace <= 0 {
		r.Grace = 3 * time.Second
	}
	return r
}

// ErrNotReached is what Check returns, and Run reports, when no case
// reached the responder's Respond: nothing was checked.
var ErrNotReached = errors.New("respondertest: no case reached Respond: the responder reported nobody reachable for every ask, so nothing was checked")

// A Case is one rule of the contract that the kit checks.
type Case struct {
	// Name names the case: the subtest's name in Run, the prefix of its
	// failure in Check.
	Name string
	// Rule is the sentence the case checks.
	Rule string

	// run checks the rule against e, whose orchestrator is already made
	// over a fresh responder.
	run func(e *env) error
}

// Cases returns the kit's cases, in the order they are reported.
func Cases() []Case { return append([]Case(nil), cases...) }

// Run runs every case as a subtest of t, each with a fresh responder from
// newResponder (which may register cleanups on the t it is given); opts may
// be nil. A case that fails reports its rule and what the responder did; a
// case that could not be checked is skipped with the reason. Run fails t
// with ErrNotReached when no case that ran reached Respond. It returns once
// every case has finished, with the cases skipped (by name, with the
// reason), so that a responder's author can hold how many ran.
func Run(t *testing.T, newResponder func(t *testing.T) askuser.Responder, opts *Options) (skipped map[string]string) {
	t.Helper()
	o := opts.resolve()
	var ran, reached atomic.Bool
	var mu sync.Mutex
	skipped = map[string]string{}
	one := func(c Case) {
		t.Run(c.Name, func(t *testing.T) {
			ran.Store(true)
			res := runIn(t, c, newResponder, o)
			if res.reached {
				reached.Store(true)
			}
			switch {
			case res.err != nil:
				t.Errorf("respondertest: %s: %s\n%v", c.Name, c.Rule, res.err)
			case res.skip != "":
				mu.Lock()
				skipped[c.Name] = res.skip
				mu.Unlock()
				t.Skip(res.skip)
			}
		})
	}
	if o.Serial {
		for _, c := range cases {
			one(c)
		}
	} else {
		var wg sync.WaitGroup
		for _, c := range cases {
			wg.Go(func() { one(c) })
		}
		wg.Wait()
	}
	if ran.Load() && !reached.Load() {
		t.Error(ErrNotReached)
	}
	return skipped
}

// Check runs every case, each with a fresh responder from newResponder, and
// returns the failures joined, each naming its case and rule, or nil; opts
// may be nil. Cases that could not be checked are left out. Check returns
// ErrNotReached (joined with any failures) when no case reached Respond.
// With Options.Synctest it must be called inside a synctest bubble.
func Check(newResponder func() askuser.Responder, opts *Options) error {
	o := opts.resolve()
	results := make([]result, len(cases))
	if o.Synctest || o.Serial {
		for i, c := range cases {
			results[i] = runCase(c, newResponder, o, o.Synctest)
		}
	} else {
		var wg sync.WaitGroup
		for i, c := range cases {
			wg.Go(func() { results[i] = runCase(c, newResponder, o, false) })
		}
		wg.Wait()
	}
	var errs []error
	reached := false
	for i, res := range results {
		reached = reached || res.reached
		if res.err != nil {
			errs = append(errs, fmt.Errorf("respondertest: %s: %s\n%w", cases[i].Name, cases[i].Rule, res.err))
		}
	}
	if !reached {
		errs = append(errs, ErrNotReached)
	}
	return errors.Join(errs...)
}

// result is what one case found.
type result struct {
	err     error
	skip    string // why the case could not be checked
	reached bool   // some ask reached Respond
}

// runIn runs one case for Run, in a bubble of its own with Synctest.
func runIn(t *testing.T, c Case, newResponder func(*testing.T) askuser.Responder, o Options) (res result) {
	if !o.Synctest {
		return runCase(c, func() askuser.Responder { return newResponder(t) }, o, false)
	}
	defer func() {
		// synctest.Test panics when the bubble's goroutines are still
		// blocked, with nothing left to wake them, once the case is done:
		// a Respond the case has already reported, or something the
		// responder left behind.
		p := recover()
		if p == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(p), "deadlock") {
			panic(p)
		}
		if res.err == nil {
			res.skip = ""
			res.err = fmt.Errorf("a goroutine of the responder was still blocked when the case ended, with nothing left that could wake it (%v); nothing the responder starts may outlive Respond and the cleanups newResponder registered", p)
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		res = runCase(c, func() askuser.Responder { return newResponder(t) }, o, true)
	})
	return res
}

func runCase(c Case, newResponder func() askuser.Responder, o Options, bubble bool) result {
	e := &env{newResponder: newResponder, opts: o, bubble: bubble}
	err := e.start()
	if err == nil {
		err = c.run(e)
	}
	e.close()
	res := result{reached: e.reached.Load()}
	var s skipError
	if errors.As(err, &s) {
		res.skip = string(s)
	} else {
		res.err = err
	}
	return res
}

// skipError says why a case could not be checked.
type skipError string

func (s skipError) Error() string { return string(s) }

func skipf(format string, args ...any) error { return skipError(fmt.Sprintf(format, args...)) }

// The skips every case may give.
var (
	errNotReached = skipError("no ask of this case reached Respond: the responder reported nobody reachable (set Options.IgnorePresence to check its Respond all the same)")
	errNoSecrets  = skipError("the responder cannot collect secrets (its CanCollectSecrets reports false), so the orchestrator never hands it a form with a sealed question")
	errNoApproval = skipError("the responder does not take approvals (it does not implement askuser.ApprovalCapable, or its CanTakeApprovals reports false), so the orchestrator never hands it one; approval-not-taken checks that")
)
