package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/store"
)

// TestApprovalNeverApprovesByItself is the property of request_approval:
// whatever responders do — report, draft, submit, decline, dismiss, say
// nobody is there, supersede, fail, panic, return, or wait out the
// deadline — whatever policy the program has, whether the responder can
// take approvals at all, and whether the caller goes away, a result is
// "approved" only when
//
//   - the person submitted an approval in this ask (decided_by "user"), or
//   - the person chose "approve for this session" for the same digest in
//     the same session in an earlier ask, and nothing replaced it
//     (decided_by "remembered", naming that ask), or
//   - the configured policy approved this request (decided_by "policy").
//
// Beyond that, every result is exactly what the first ending that took
// effect says (the oracle below), and the remembered decisions are exactly
// the person's choices for the session. Each run is a sequence of requests
// for two actions in two sessions, each in a synctest bubble of its own
// (the deadlines pass at once), through orchestrators that share one
// consent store, as processes that restart would.
func TestApprovalNeverApprovesByItself(t *testing.T) {
	calls := []struct{ call, action, details string }{
		{apCall, apAction, apDetails},
		{apOtherCall, "Delete the S3 bucket logs-2022", "aws s3 rb s3://logs-2022 --force"},
	}
	rapid.Check(t, func(rt *rapid.T) {
		consents := &store.MemoryConsents{}
		hasPolicy := rapid.Bool().Draw(rt, "hasPolicy")
		type key struct{ session, digest string }
		remembered := map[key]store.Consent{} // the oracle's consent store
		n := rapid.IntRange(1, 8).Draw(rt, "requests")
		for i := range n {
			c := calls[rapid.IntRange(0, 1).Draw(rt, "call")]
			session := rapid.SampledFrom([]string{"s1", "s2"}).Draw(rt, "session")
			digest := approval.Digest(c.action, c.details)
			decision := "none"
			if hasPolicy {
				decision = rapid.SampledFrom([]string{"ask", "ask", "ask", "approve", "deny", "panic"}).Draw(rt, "policy")
			}
			reach := rapid.SampledFrom([]string{"capable", "capable", "capable", "incapable", "notNow", "nobody", "absent"}).Draw(rt, "responder")
			timeout := rapid.SampledFrom([]int{5, 10}).Draw(rt, "timeout")
			steps := rapid.OneOf(stepsGen, decisiveGen).Draw(rt, "steps")
			cancelAt := rapid.SampledFrom([]time.Duration{0, 0, 0, 2300 * time.Millisecond, 7900 * time.Millisecond}).Draw(rt, "cancelAt")
			call := fmt.Sprintf(`{"action":%q,"reason":"r","risk":"high","details":%q,"timeout_seconds":%d}`, c.action, c.details, timeout)

			var (
				res     run
				tr      truth
				journal approvalJournal
			)
			synctest.Test(t, func(t *testing.T) {
				o := &askuser.Orchestrator{Consents: consents, Journal: &journal, Logger: newDiscardLogger()}
				if hasPolicy {
					o.ApprovalPolicy = func(context.Context, string, *approval.Request) approval.PolicyDecision {
						switch decision {
						case "approve":
							return approval.PolicyApprove
						case "deny":
							return approval.PolicyDeny
						case "panic":
							panic("the policy failed")
						}
						return approval.PolicyAsk
					}
				}
				p := &planned{steps: steps, tr: &tr, o: o}
				switch reach {
				case "capable":
					o.Responder = capable{p}
				case "incapable":
					o.Responder = askuser.ResponderFunc(p.Respond)
				case "notNow":
					o.Responder = notNow{p}
				case "absent":
					o.Responder = absent{capable{p}}
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if cancelAt > 0 {
					time.AfterFunc(cancelAt, cancel)
				}
				out, err := o.Handle(ctx, askuser.Request{Session: session, Dialect: approvaltool.Dialect(), Arguments: []byte(call)})
				o.WaitResponders()
				res = run{out: out, err: err}
			})

			// The oracle.
			want := expectation{status: approval.Unresolved}
			prior, hasPrior := remembered[key{session, digest}]
			switch {
			case decision == "approve":
				want = expectation{status: approval.Approved, decidedBy: "policy"}
			case decision == "deny":
				want = expectation{status: approval.Denied, decidedBy: "policy"}
			case hasPrior:
				want = expectation{status: approval.Denied, decidedBy: "remembered", from: prior.AskID}
				if prior.Approved {
					want.status = approval.Approved
				}
			case reach != "capable":
				want.ended = "unattended"
			default:
				want = tr.expect()
			}
			if reach != "capable" && tr.calls > 0 {
				rt.Fatalf("request %d: a responder that cannot take this approval was asked", i)
			}

			if res.err != nil {
				if !errors.Is(res.err, context.Canceled) || cancelAt == 0 || res.out != nil {
					rt.Fatalf("request %d: Handle = %v, %v", i, res.out, res.err)
				}
				if want.status != approval.Unresolved || want.ended != "deadline" && want.ended != "fault" {
					// Only an ask still waiting can be left by its caller.
					rt.Fatalf("request %d: the caller went away from an ask that had ended %+v", i, want)
				}
			} else {
				got := parse(rt, res.out.Result)
				if got != want.result(digest) {
					rt.Fatalf("request %d (policy %s, responder %s, truth %+v, remembered %+v):\n got %+v\nwant %+v",
						i, decision, reach, tr, prior, got, want.result(digest))
				}
				// The property itself, said plainly.
				if got.Status == approval.Approved {
					justified := got.DecidedBy == "user" && tr.ended == "submit" && isApprove(tr.accepted) ||
						got.DecidedBy == "remembered" && hasPrior && prior.Approved && prior.AskID == got.RememberedFrom ||
						got.DecidedBy == "policy" && decision == "approve"
					if !justified {
						rt.Fatalf("request %d: approved without a person's approval or the policy's: %s", i, res.out.Result)
					}
				}
				if want.decidedBy == "user" && want.remember {
					remembered[key{session, digest}] = store.Consent{Approved: want.status == approval.Approved, AskID: res.out.AskID}
				}
				recs := journal.records()
				if len(recs) != 1 || string(recs[0].Result) != string(res.out.Result) || recs[0].RememberedFrom != want.from {
					rt.Fatalf("request %d: journal %+v", i, recs)
				}
			}

			for _, s := range []string{"s1", "s2"} {
				cs, err := consents.Consents(context.Background(), s)
				if err != nil {
					rt.Fatal(err)
				}
				n := 0
				for k := range remembered {
					if k.session == s {
						n++
					}
				}
				if len(cs) != n {
					rt.Fatalf("after request %d, session %s remembers %+v; the person chose %d", i, s, cs, n)
				}
				for _, c := range cs {
					if m, ok := remembered[key{s, c.Digest}]; !ok || m.Approved != c.Approved || m.AskID != c.AskID {
						rt.Fatalf("after request %d, session %s remembers %+v; the person chose %+v", i, s, c, m)
					}
				}
			}
		}
	})
}

// A step is one thing a responder does.
type step struct {
	kind  string // sleep, report, draft, submit, decline, cancel, unreachable, supersede, error, panic, return, wait
	value string // for report and draft
	d     time.Duration
}

// The sleeps are not whole seconds, so that no step lands on a deadline
// (5 or 10 s) or on the caller's going away: which of two things at the
// same instant goes first is not the property's business.
var stepGen = rapid.Custom(func(t *rapid.T) step {
	s := step{kind: rapid.SampledFrom([]string{
		"sleep", "sleep", "report", "report", "report", "draft", "submit", "submit", "decline", "cancel",
		"unreachable", "supersede", "error", "panic", "return", "wait",
	}).Draw(t, "kind")}
	switch s.kind {
	case "sleep":
		s.d = rapid.SampledFrom([]time.Duration{1500 * time.Millisecond, 3700 * time.Millisecond}).Draw(t, "d")
	case "report", "draft":
		s.value = rapid.SampledFrom([]string{approval.ApproveOnce, approval.ApproveSession, approval.DenyOnce, approval.DenySession, "yes"}).Draw(t, "value")
	}
	return s
})

// stepsGen draws any steps; decisiveGen, those of a person who decides:
// a pick, perhaps a pause, and a submit, perhaps a second late.
var (
	stepsGen    = rapid.SliceOfN(stepGen, 0, 6)
	decisiveGen = rapid.Custom(func(t *rapid.T) []step {
		pause := step{kind: "sleep", d: rapid.SampledFrom([]time.Duration{100 * time.Millisecond, 3700 * time.Millisecond, 10300 * time.Millisecond}).Draw(t, "pause")}
		v := rapid.SampledFrom([]string{approval.ApproveOnce, approval.ApproveSession, approval.DenyOnce, approval.DenySession}).Draw(t, "decision")
		return []step{{kind: "report", value: v}, pause, {kind: "submit"}}
	})
)

// truth is what the responder did that took effect.
type truth struct {
	calls    int
	accepted string // the last answer the orchestrator accepted
	ended    string // the ending that took effect: submit, decline, cancel, unreachable, supersede
	ctxDone  bool   // the ask's context had ended when Respond returned
}

// expect is the result the first ending that took effect gives.
func (tr truth) expect() expectation {
	switch tr.ended {
	case "submit":
		e := expectation{status: approval.Denied, decidedBy: "user", remember: tr.accepted == approval.ApproveSession || tr.accepted == approval.DenySession}
		if isApprove(tr.accepted) {
			e.status = approval.Approved
		}
		return e
	case "decline":
		return expectation{status: approval.Denied, decidedBy: "user"}
	case "cancel":
		return expectation{status: approval.Unresolved, ended: "dismissed"}
	case "unreachable":
		return expectation{status: approval.Unresolved, ended: "unattended"}
	case "supersede":
		return expectation{status: approval.Unresolved, ended: "superseded"}
	}
	if tr.ctxDone {
		return expectation{status: approval.Unresolved, ended: "deadline"}
	}
	return expectation{status: approval.Unresolved, ended: "fault"}
}

func isApprove(v string) bool { return v == approval.ApproveOnce || v == approval.ApproveSession }

type expectation struct {
	status, decidedBy, ended, from string
	remember                       bool
}

// approvalTop is the part of a result the property is about.
type approvalTop struct {
	Status         string `json:"status"`
	DecidedBy      string `json:"decided_by"`
	Ended          string `json:"ended"`
	ActionDigest   string `json:"action_digest"`
	Remember       string `json:"remember"`
	RememberedFrom string `json:"remembered_from"`
}

func (e expectation) result(digest string) approvalTop {
	r := approvalTop{Status: e.status, DecidedBy: e.decidedBy, Ended: e.ended, ActionDigest: digest, RememberedFrom: e.from}
	if e.remember {
		r.Remember = "session"
	}
	return r
}

func parse(t *rapid.T, b []byte) approvalTop {
	var r approvalTop
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	return r
}

type run struct {
	out *askuser.Outcome
	err error
}

// planned plays its steps for the ask it is given, and keeps the truth of
// what took effect.
type planned struct {
	steps []step
	tr    *truth
	o     *askuser.Orchestrator
}

func (p *planned) Respond(ctx context.Context, a *askuser.Ask) error {
	p.tr.calls++
	defer func() { p.tr.ctxDone = ctx.Err() != nil }()
	end := func(name string, err error) error {
		if err == nil {
			p.tr.ended = name
		}
		return err
	}
	for _, s := range p.steps {
		switch s.kind {
		case "sleep":
			select {
			case <-time.After(s.d):
			case <-ctx.Done():
				return ctx.Err()
			}
		case "report":
			if a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{s.value}}) == nil {
				p.tr.accepted = s.value
			}
		case "draft":
			_ = a.Draft(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{s.value}})
		case "submit":
			return end("submit", a.Submit())
		case "decline":
			return end("decline", a.Decline())
		case "cancel":
			return end("cancel", a.Cancel(""))
		case "unreachable":
			return end("unreachable", a.Unreachable())
		case "supersede":
			if p.o.Supersede(a.Session()) > 0 {
				p.tr.ended = "supersede"
			}
			return nil
		case "error":
			return errors.New("the card's server went away")
		case "panic":
			panic("the responder broke")
		case "return":
			return nil
		case "wait":
			<-ctx.Done()
			return ctx.Err()
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

// absent is a responder whose Presence says nobody is there.
type absent struct{ askuser.Responder }

func (absent) Reachable(context.Context, string) bool { return false }
func (a absent) Unwrap() askuser.Responder            { return a.Responder }
