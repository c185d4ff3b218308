package askuser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/store"
)

// The approval every row asks: an irreversible action with details, and a
// 60-second wait.
const (
	apAction  = "Delete the S3 bucket logs-2023"
	apDetails = "aws s3 rb s3://logs-2023 --force"
	apCall    = `{"action":"Delete the S3 bucket logs-2023","reason":"Its logs were archived to Glacier last week","risk":"irreversible","details":"aws s3 rb s3://logs-2023 --force","timeout_seconds":60}`
	// another action, in the same words but for another bucket
	apOtherCall = `{"action":"Delete the S3 bucket logs-2022","reason":"Its logs were archived to Glacier last week","risk":"irreversible","details":"aws s3 rb s3://logs-2022 --force","timeout_seconds":60}`
	// the same action with other details: a new request
	apChangedCall = `{"action":"Delete the S3 bucket logs-2023","reason":"Its logs were archived to Glacier last week","risk":"irreversible","details":"aws s3 rb s3://logs-2023","timeout_seconds":60}`
)

var apDigest = approval.Digest(apAction, apDetails)

// The results, by how the approval ended. %D is the digest, %F the ask a
// remembered decision came from.
const (
	noPermission = `You have no permission to perform it, and must not act. Tell the user what you did not do; ask again only if it is still needed."}`

	resApprovedOnce    = `{"status":"approved","decided_by":"user","note":"after 18:00 only","ended":null,"action_digest":"%D","message":"The user approved this action. You may perform it once, exactly as requested; if the action changes, request approval again."}`
	resApprovedSession = `{"status":"approved","decided_by":"user","note":null,"ended":null,"action_digest":"%D","remember":"session","message":"The user approved this action for the rest of the session. You may perform it, exactly as requested; the same action is approved again without asking, and a changed action needs a new request."}`
	resApprovedRemem   = `{"status":"approved","decided_by":"remembered","note":null,"ended":null,"action_digest":"%D","remembered_from":"%F","message":"Approved: the user approved this same action earlier in this session, for the session. You may perform it, exactly as requested."}`
	resApprovedPolicy  = `{"status":"approved","decided_by":"policy","note":null,"ended":null,"action_digest":"%D","message":"Approved by the program's policy, without asking the user. You may perform this action, exactly as requested."}`
	resDeniedOnce      = `{"status":"denied","decided_by":"user","note":"not before the audit","ended":null,"action_digest":"%D","message":"The user denied this action. You have no permission to perform it: do not perform it, and do not try to achieve the same effect another way."}`
	resDeclined        = `{"status":"denied","decided_by":"user","note":null,"ended":null,"action_digest":"%D","message":"The user denied this action. You have no permission to perform it: do not perform it, and do not try to achieve the same effect another way."}`
	resDeniedSession   = `{"status":"denied","decided_by":"user","note":null,"ended":null,"action_digest":"%D","remember":"session","message":"The user denied this action for the rest of the session. You have no permission to perform it: do not perform it, do not try to achieve the same effect another way, and do not request it again in this session."}`
	resDeniedRemem     = `{"status":"denied","decided_by":"remembered","note":null,"ended":null,"action_digest":"%D","remembered_from":"%F","message":"Denied: the user denied this same action earlier in this session, for the session. You have no permission to perform it: do not perform it."}`
	resDeniedPolicy    = `{"status":"denied","decided_by":"policy","note":null,"ended":null,"action_digest":"%D","message":"Denied by the program's policy. You have no permission to perform this action: do not perform it."}`
	resDeadline        = `{"status":"unresolved","decided_by":null,"note":null,"ended":"deadline","action_digest":"%D","message":"Nobody approved this action: the wait ended before anyone decided. ` + noPermission
	resUnattended      = `{"status":"unresolved","decided_by":null,"note":null,"ended":"unattended","action_digest":"%D","message":"Nobody approved this action: nobody could be asked. ` + noPermission
	resDismissed       = `{"status":"unresolved","decided_by":null,"note":null,"ended":"dismissed","action_digest":"%D","message":"Nobody approved this action: the user dismissed the request without deciding. ` + noPermission
	resSuperseded      = `{"status":"unresolved","decided_by":null,"note":null,"ended":"superseded","action_digest":"%D","message":"Nobody approved this action: the user wrote a message instead of deciding. ` + noPermission
	resFault           = `{"status":"unresolved","decided_by":null,"note":null,"ended":"fault","action_digest":"%D","message":"Nobody approved this action: the request could not be shown or answered. ` + noPermission
)

// res fills in a result: the digest, and the ask a remembered decision
// came from.
func res(tmpl, digest, from string) string {
	return strings.NewReplacer("%D", digest, "%F", from).Replace(tmpl)
}

func choose(value, note string) *askuser.Answer {
	return &askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{value}, Note: note}
}

// capable declares that what it wraps takes approvals: a person answers
// there. It answers for the whole chain, as a wrapper that implements an
// optional interface does.
type capable struct{ askuser.Responder }

func (capable) CanTakeApprovals() bool                               { return true }
func (c capable) Unwrap() askuser.Responder                          { return c.Responder }
func (c capable) ResponderName() string                              { return "capable" }
func script(steps ...scripted.Step) capable                          { return capable{scripted.New(steps...)} }
func counted(n *atomic.Int32, r askuser.Responder) askuser.Responder { return countCalls{n, r} }

// countCalls counts the asks handed to what it wraps.
type countCalls struct {
	n *atomic.Int32
	askuser.Responder
}

func (c countCalls) Respond(ctx context.Context, a *askuser.Ask) error {
	c.n.Add(1)
	return c.Responder.Respond(ctx, a)
}
func (c countCalls) Unwrap() askuser.Responder { return c.Responder }

// approvalJournal keeps records in memory and finds them for replay.
type approvalJournal struct {
	mu   sync.Mutex
	recs []*journal.Record
}

func (j *approvalJournal) Append(_ context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.recs = append(j.recs, r)
	return nil
}

func (j *approvalJournal) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	return storedFound(j.find(ctx, session, toolCallID))
}

func (j *approvalJournal) find(_ context.Context, session, toolCallID string) (*journal.Record, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.recs) - 1; i >= 0; i-- {
		if r := j.recs[i]; r.Session == session && r.ToolCallID == toolCallID && r.Result != nil {
			return r, true, nil
		}
	}
	return nil, false, nil
}

func (j *approvalJournal) records() []*journal.Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]*journal.Record(nil), j.recs...)
}

func approve(ctx context.Context, t *testing.T, o *askuser.Orchestrator, session, toolCall, call string) (*askuser.Outcome, error) {
	t.Helper()
	return o.Handle(ctx, askuser.Request{Session: session, ToolCallID: toolCall, Dialect: approvaltool.Dialect(), Arguments: []byte(call)})
}

func mustApprove(t *testing.T, o *askuser.Orchestrator, session, toolCall, call string) *askuser.Outcome {
	t.Helper()
	out, err := approve(context.Background(), t, o, session, toolCall, call)
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	return out
}

func checkResult(t *testing.T, out *askuser.Outcome, want string) {
	t.Helper()
	if got := string(out.Result); got != want {
		t.Errorf("result\n got %s\nwant %s", got, want)
	}
}

// TestApprovalOutcomeTable drives every way an approval can end, through
// Orchestrator.Handle with approvaltool.Dialect(), in a synctest bubble (the
// deadline rows wait out 60 s at once): the result the model reads, the
// reason on the outcome, and one journal record with the approval.
func TestApprovalOutcomeTable(t *testing.T) {
	failed := errors.New("the card's server went away")
	tests := []struct {
		name      string
		responder func(o *askuser.Orchestrator) askuser.Responder
		cancelAt  time.Duration // the caller goes away after this long (0: never)
		want      string        // "" with cancelAt: no result
		reason    askuser.Reason
	}{
		{name: "the person approves once, with a note",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "  after 18:00 only ")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resApprovedOnce, reason: askuser.ReasonSubmitted},
		{name: "the person approves for the session",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveSession, "")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resApprovedSession, reason: askuser.ReasonSubmitted},
		{name: "the person changes their mind before submitting",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "")},
					scripted.Step{Answer: choose(approval.DenyOnce, "not before the audit")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resDeniedOnce, reason: askuser.ReasonSubmitted},
		{name: "the person denies once, with a note",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.DenyOnce, "not before the audit")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resDeniedOnce, reason: askuser.ReasonSubmitted},
		{name: "the person denies for the session",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.DenySession, "")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resDeniedSession, reason: askuser.ReasonSubmitted},
		{name: "the person declines: a denial",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{End: scripted.EndDecline})
			},
			want: resDeclined, reason: askuser.ReasonDeclined},
		{name: "the person dismisses the card after picking approve",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "yes")}, scripted.Step{End: scripted.EndCancel})
			},
			want: resDismissed, reason: askuser.ReasonDismissed},
		{name: "the deadline, with approve picked and not submitted",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveSession, "")})
			},
			want: resDeadline, reason: askuser.ReasonDeadline},
		{name: "the deadline, with approve checked as a draft",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Draft: choose(approval.ApproveOnce, "")})
			},
			want: resDeadline, reason: askuser.ReasonDeadline},
		{name: "the deadline, with a submit one second late",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{Delay: 61 * time.Second, End: scripted.EndSubmit})
			},
			want: resDeadline, reason: askuser.ReasonDeadline},
		{name: "the deadline, with a submit at exactly the deadline",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return capable{&scripted.Responder{IgnoreContext: true, Steps: []scripted.Step{
					{Answer: choose(approval.ApproveOnce, "")}, {Delay: 60 * time.Second, End: scripted.EndSubmit}}}}
			},
			want: resDeadline, reason: askuser.ReasonDeadline},
		{name: "nobody: no responder",
			responder: func(*askuser.Orchestrator) askuser.Responder { return nil },
			want:      resUnattended, reason: askuser.ReasonUnattended},
		{name: "nobody: the responder says nobody is there",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{End: scripted.EndUnreachable})
			},
			want: resUnattended, reason: askuser.ReasonUnattended},
		{name: "nobody: auto, which takes no approvals",
			responder: func(*askuser.Orchestrator) askuser.Responder { return auto.New() },
			want:      resUnattended, reason: askuser.ReasonUnattended},
		{name: "not ApprovalCapable: a ResponderFunc that picks approve and submits",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
					if err := a.Report(*choose(approval.ApproveOnce, "")); err != nil {
						return err
					}
					return a.Submit()
				})
			},
			want: resUnattended, reason: askuser.ReasonUnattended},
		{name: "not ApprovalCapable: a script behind a ResponderFunc",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				// A ResponderFunc hides the script's own ApprovalCapable.
				return askuser.ResponderFunc(scripted.New(scripted.Decide(approval.ApproveOnce, "")).Respond)
			},
			want: resUnattended, reason: askuser.ReasonUnattended},
		{name: "ApprovalCapable, but not now",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return notNow{scripted.New(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{End: scripted.EndSubmit})}
			},
			want: resUnattended, reason: askuser.ReasonUnattended},
		{name: "a fault: the responder fails after approve was picked",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{Err: failed})
			},
			want: resFault, reason: askuser.ReasonFault},
		{name: "a fault: the responder returns without an ending",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return capable{askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
					return a.Report(*choose(approval.ApproveOnce, ""))
				})}
			},
			want: resFault, reason: askuser.ReasonFault},
		{name: "a fault: a refused submit",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose("yes", "")}, scripted.Step{End: scripted.EndSubmit})
			},
			want: resFault, reason: askuser.ReasonFault},
		{name: "a panic",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{Panic: "index out of range"})
			},
			want: resFault, reason: askuser.ReasonFault},
		{name: "a supersede: the person wrote a message instead",
			responder: func(o *askuser.Orchestrator) askuser.Responder {
				r := scripted.New(scripted.Step{Answer: choose(approval.ApproveOnce, "")}, scripted.Step{Delay: time.Second, End: scripted.EndSupersede})
				r.Supersede = o.Supersede
				return capable{r}
			},
			want: resSuperseded, reason: askuser.ReasonSuperseded},
		{name: "the caller goes away",
			responder: func(*askuser.Orchestrator) askuser.Responder {
				return script(scripted.Step{Answer: choose(approval.ApproveSession, "")})
			},
			cancelAt: 10 * time.Second, reason: askuser.ReasonCaller},
	}
	for _, mode := range storeModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				if mode.name == "shared" && tt.cancelAt > 0 {
					t.Skip("with a shared store the caller going away leaves the ask pending (TestSharedDeadlineWithNobodyWaiting)")
				}
				synctest.Test(t, func(t *testing.T) {
					j := &approvalJournal{}
					o := &askuser.Orchestrator{Consents: &store.MemoryConsents{}, Journal: j, Logger: newDiscardLogger(), Asks: mode.asks()}
					defer o.Close()
					o.Responder = tt.responder(o)
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if tt.cancelAt > 0 {
						time.AfterFunc(tt.cancelAt, cancel)
					}
					out, err := approve(ctx, t, o, "s1", "call-1", apCall)
					o.WaitResponders()
					synctest.Wait() // a record follows its final result on a shared store
					recs := j.records()
					if len(recs) != 1 {
						t.Fatalf("%d journal records, want 1", len(recs))
					}
					rec := recs[0]
					if rec.Reason != tt.reason || rec.Contract != "request_approval" || rec.Approval == nil || rec.Approval.Digest != apDigest {
						t.Errorf("journal record: reason %s, contract %s, approval %+v; want %s, request_approval, digest %s", rec.Reason, rec.Contract, rec.Approval, tt.reason, apDigest)
					}
					if tt.cancelAt > 0 {
						if !errors.Is(err, context.Canceled) || out != nil {
							t.Fatalf("Handle = %v, %v; want no outcome and the context's error", out, err)
						}
						if rec.Result != nil {
							t.Errorf("the journal keeps a result nobody read: %s", rec.Result)
						}
						if cs, _ := o.Consents.Consents(context.Background(), "s1"); len(cs) != 0 {
							t.Errorf("a pick nobody submitted was remembered: %+v", cs)
						}
						return
					}
					if err != nil {
						t.Fatalf("Handle: %v", err)
					}
					want := res(tt.want, apDigest, "")
					checkResult(t, out, want)
					if out.Reason != tt.reason {
						t.Errorf("reason %s, want %s", out.Reason, tt.reason)
					}
					if string(rec.Result) != want {
						t.Errorf("journal result %s", rec.Result)
					}
					if v, _ := approvaltool.VerdictOf(out); v.Status == approval.Unresolved && len(out.Answers) > 0 {
						t.Errorf("an unresolved approval carries answers: %+v", out.Answers)
					}
				})
			})
		}
	}
}

// notNow is a responder that can take approvals in general, but reports
// that it cannot now (a web card with no authenticated person, say).
type notNow struct{ askuser.Responder }

func (notNow) CanTakeApprovals() bool { return false }

// TestApprovalRemembered: a person's "for this session" decides the next
// request for the same action in the same session without asking —
// reported as remembered, naming the ask it came from, in the result and
// in the journal — while another action, the same action with other
// details, or another session asks again. A remembered denial works the
// same way, and revoking a decision makes the next request ask again.
func TestApprovalRemembered(t *testing.T) {
	for _, tt := range []struct {
		name, value, first, then string
		approved                 bool
	}{
		{"approved for the session", approval.ApproveSession, resApprovedSession, resApprovedRemem, true},
		{"denied for the session", approval.DenySession, resDeniedSession, resDeniedRemem, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int32
			j := &approvalJournal{}
			o := &askuser.Orchestrator{Consents: &store.MemoryConsents{}, Journal: j, Logger: newDiscardLogger(),
				Responder: counted(&asked, script(scripted.Step{Answer: choose(tt.value, "")}, scripted.Step{End: scripted.EndSubmit}))}
			first := mustApprove(t, o, "s1", "call-1", apCall)
			checkResult(t, first, res(tt.first, apDigest, ""))

			again := mustApprove(t, o, "s1", "call-2", apCall)
			checkResult(t, again, res(tt.then, apDigest, first.AskID))
			if asked.Load() != 1 {
				t.Errorf("the responder was asked %d times, want once", asked.Load())
			}
			if again.Reason != askuser.ReasonRemembered || again.RememberedFrom != first.AskID || again.AnsweredBy != askuser.ByRemembered {
				t.Errorf("outcome: reason %s, remembered from %q, answered by %s", again.Reason, again.RememberedFrom, again.AnsweredBy)
			}
			recs := j.records()
			if rec := recs[len(recs)-1]; rec.RememberedFrom != first.AskID || rec.AnsweredBy != askuser.ByRemembered || rec.Approval == nil {
				t.Errorf("journal record: remembered from %q, answered by %s, approval %v", rec.RememberedFrom, rec.AnsweredBy, rec.Approval)
			}

			cs, err := o.Consents.Consents(context.Background(), "s1")
			if err != nil || len(cs) != 1 {
				t.Fatalf("Consents = %+v, %v; want one", cs, err)
			}
			if c := cs[0]; c.Digest != apDigest || c.Approved != tt.approved || c.AskID != first.AskID || c.Action != apAction || c.Session != "s1" {
				t.Errorf("consent %+v", c)
			}

			for _, other := range []struct{ name, session, call, digest string }{
				{"another action", "s1", apOtherCall, approval.Digest("Delete the S3 bucket logs-2022", "aws s3 rb s3://logs-2022 --force")},
				{"the same action with other details", "s1", apChangedCall, approval.Digest(apAction, "aws s3 rb s3://logs-2023")},
				{"another session", "s2", apCall, apDigest},
			} {
				before := asked.Load()
				out := mustApprove(t, o, other.session, "call-"+other.name, other.call)
				if asked.Load() != before+1 || out.Reason != askuser.ReasonSubmitted {
					t.Errorf("%s: asked %d more times, reason %s; want asked once more", other.name, asked.Load()-before, out.Reason)
				}
				if v, _ := approvaltool.VerdictOf(out); v.Digest != other.digest {
					t.Errorf("%s: digest %s, want %s", other.name, v.Digest, other.digest)
				}
			}

			if err := o.Consents.Revoke(context.Background(), "s1", apDigest); err != nil {
				t.Fatal(err)
			}
			before := asked.Load()
			out := mustApprove(t, o, "s1", "call-after-revoke", apCall)
			if asked.Load() != before+1 || out.Reason != askuser.ReasonSubmitted {
				t.Errorf("after Revoke: asked %d more times, reason %s; want the person asked", asked.Load()-before, out.Reason)
			}
		})
	}
}

// TestApprovalNotRememberedWithoutAChoice: only a person's explicit choice
// for the session is remembered — never an approval once, a decline, a
// policy, a deadline, a fault or a supersede.
func TestApprovalNotRememberedWithoutAChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		policyOn := true
		o := &askuser.Orchestrator{Consents: &store.MemoryConsents{}, Logger: newDiscardLogger(), ApprovalPolicy: func(context.Context, string, *approval.Request) approval.PolicyDecision {
			if policyOn {
				return approval.PolicyApprove
			}
			return approval.PolicyAsk
		}}
		var steps []scripted.Step
		o.Responder = capable{askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			r := scripted.New(steps...)
			r.Supersede = o.Supersede
			return r.Respond(ctx, a)
		})}
		mustApprove(t, o, "s1", "", apCall) // the policy approves
		policyOn = false
		for _, s := range [][]scripted.Step{
			{{Answer: choose(approval.ApproveOnce, "")}, {End: scripted.EndSubmit}},
			{{Answer: choose(approval.DenyOnce, "")}, {End: scripted.EndSubmit}},
			{{Answer: choose(approval.ApproveSession, "")}, {End: scripted.EndDecline}},
			{{Answer: choose(approval.ApproveSession, "")}, {End: scripted.EndCancel}},
			{{Answer: choose(approval.ApproveSession, "")}},                         // the deadline
			{{Answer: choose(approval.ApproveSession, "")}, {Err: errors.New("x")}}, // a fault
			{{Answer: choose(approval.ApproveSession, "")}, {End: scripted.EndSupersede}},
		} {
			steps = s
			mustApprove(t, o, "s1", "", apCall)
			o.WaitResponders()
		}
		if cs, _ := o.Consents.Consents(context.Background(), "s1"); len(cs) != 0 {
			t.Errorf("remembered without the person's choice for the session: %+v", cs)
		}
	})
}

// TestApprovalPolicy: a policy that approves or denies decides without
// asking anyone, reported and journaled as the policy's; one that asks, or
// panics, leaves the decision to a person (the panic is logged). The policy
// is given the session and the approval, and decides before a remembered
// decision is looked at.
func TestApprovalPolicy(t *testing.T) {
	tests := []struct {
		name   string
		policy approval.Policy
		want   string
		asked  bool
		reason askuser.Reason
	}{
		{"approve", func(context.Context, string, *approval.Request) approval.PolicyDecision {
			return approval.PolicyApprove
		},
			resApprovedPolicy, false, askuser.ReasonPolicy},
		{"deny", func(context.Context, string, *approval.Request) approval.PolicyDecision { return approval.PolicyDeny },
			resDeniedPolicy, false, askuser.ReasonPolicy},
		{"ask", func(context.Context, string, *approval.Request) approval.PolicyDecision { return approval.PolicyAsk },
			res(resApprovedOnce, apDigest, ""), true, askuser.ReasonSubmitted},
		{"an unknown decision asks", func(context.Context, string, *approval.Request) approval.PolicyDecision { return 42 },
			res(resApprovedOnce, apDigest, ""), true, askuser.ReasonSubmitted},
		{"panic asks", func(context.Context, string, *approval.Request) approval.PolicyDecision {
			panic("allowlist not loaded")
		},
			res(resApprovedOnce, apDigest, ""), true, askuser.ReasonSubmitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int32
			var logs bytes.Buffer
			j := &approvalJournal{}
			var seen []string
			o := &askuser.Orchestrator{Consents: &store.MemoryConsents{},
				Journal: j,
				Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
				ApprovalPolicy: func(ctx context.Context, session string, a *approval.Request) approval.PolicyDecision {
					seen = append(seen, session+" "+a.Action+" "+string(a.Risk)+" "+a.Digest)
					a.Action = "changed by the policy" // a copy: changes nothing
					return tt.policy(ctx, session, a)
				},
				Responder: counted(&asked, script(scripted.Step{Answer: choose(approval.ApproveOnce, "after 18:00 only")}, scripted.Step{End: scripted.EndSubmit})),
			}
			out := mustApprove(t, o, "s1", "call-1", apCall)
			checkResult(t, out, res(tt.want, apDigest, ""))
			if (asked.Load() == 1) != tt.asked || out.Reason != tt.reason {
				t.Errorf("asked %d times, reason %s; want asked %v, %s", asked.Load(), out.Reason, tt.asked, tt.reason)
			}
			if diff := cmp.Diff([]string{"s1 " + apAction + " irreversible " + apDigest}, seen); diff != "" {
				t.Errorf("the policy saw (-want +got):\n%s", diff)
			}
			if out.Form.Approval.Action != apAction {
				t.Errorf("the policy changed the approval: %q", out.Form.Approval.Action)
			}
			if rec := j.records()[0]; rec.Reason != tt.reason || (!tt.asked && rec.AnsweredBy != askuser.ByPolicy) {
				t.Errorf("journal: reason %s, answered by %s", rec.Reason, rec.AnsweredBy)
			}
			if strings.Contains(tt.name, "panic") != strings.Contains(logs.String(), "the approval policy panicked") {
				t.Errorf("log: %s", logs.String())
			}
			if cs, _ := o.Consents.Consents(context.Background(), "s1"); len(cs) != 0 {
				t.Errorf("a policy's decision was remembered: %+v", cs)
			}
		})
	}

	t.Run("before a remembered decision", func(t *testing.T) {
		var on atomic.Bool
		o := &askuser.Orchestrator{Logger: newDiscardLogger(),
			Responder: script(scripted.Step{Answer: choose(approval.DenySession, "")}, scripted.Step{End: scripted.EndSubmit}),
			ApprovalPolicy: func(context.Context, string, *approval.Request) approval.PolicyDecision {
				if on.Load() {
					return approval.PolicyApprove
				}
				return approval.PolicyAsk
			}}
		mustApprove(t, o, "s1", "", apCall) // denied for the session
		on.Store(true)
		checkResult(t, mustApprove(t, o, "s1", "", apCall), res(resApprovedPolicy, apDigest, ""))
	})
}

// TestApprovalReplay: a tool call already finalized returns the same result
// without asking anyone — from memory, for a joining call while pending,
// and from the journal after a restart, where the outcome still carries
// the approval its verdict needs.
func TestApprovalReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	jf, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	o := &askuser.Orchestrator{Journal: jf, Logger: newDiscardLogger(),
		Responder: counted(&asked, script(scripted.Step{Answer: choose(approval.ApproveOnce, "after 18:00 only")}, scripted.Step{End: scripted.EndSubmit}))}
	first := mustApprove(t, o, "s1", "call-1", apCall)
	again := mustApprove(t, o, "s1", "call-1", `{"action":"something else entirely"}`)
	if !again.Replayed || !bytes.Equal(again.Result, first.Result) || asked.Load() != 1 {
		t.Errorf("replay: replayed %v, asked %d, result %s", again.Replayed, asked.Load(), again.Result)
	}
	if err := jf.Close(); err != nil {
		t.Fatal(err)
	}

	jf2, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer jf2.Close()
	restarted := &askuser.Orchestrator{Journal: jf2, Logger: newDiscardLogger(), Responder: counted(&asked, auto.New())}
	out := mustApprove(t, restarted, "s1", "call-1", apCall)
	if !out.Replayed || !bytes.Equal(out.Result, first.Result) || asked.Load() != 1 {
		t.Errorf("replay after a restart: replayed %v, asked %d, result %s", out.Replayed, asked.Load(), out.Result)
	}
	v, ok := approvaltool.VerdictOf(out)
	if !ok || v.Status != approval.Approved || v.Digest != apDigest {
		t.Errorf("the replayed outcome's verdict = %+v, %v; want approved with the digest", v, ok)
	}
	if other := mustApprove(t, restarted, "s2", "call-1", apCall); other.Replayed {
		t.Error("the same tool-call id in another session was replayed")
	}
}

// TestApprovalConsentsSurviveARestart: with a consents file, a decision
// for the session holds in the next process.
func TestApprovalConsentsSurviveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "consents.jsonl")
	cs, err := journal.OpenConsents(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Consents: cs, Logger: newDiscardLogger(),
		Responder: script(scripted.Step{Answer: choose(approval.ApproveSession, "")}, scripted.Step{End: scripted.EndSubmit})}
	first := mustApprove(t, o, "s1", "", apCall)
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	cs2, err := journal.OpenConsents(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	restarted := &askuser.Orchestrator{Consents: cs2, Logger: newDiscardLogger()}
	checkResult(t, mustApprove(t, restarted, "s1", "", apCall), res(resApprovedRemem, apDigest, first.AskID))
}

// TestApprovalFirstReachable: of several responders, an approval goes to
// the first that takes approvals.
func TestApprovalFirstReachable(t *testing.T) {
	var plain, able atomic.Int32
	o := &askuser.Orchestrator{Logger: newDiscardLogger(), Responder: askuser.FirstReachable(
		counted(&plain, askuser.ResponderFunc(scripted.New(scripted.Decide(approval.ApproveOnce, "")).Respond)),
		counted(&able, script(scripted.Step{Answer: choose(approval.DenyOnce, "not before the audit")}, scripted.Step{End: scripted.EndSubmit})),
	)}
	checkResult(t, mustApprove(t, o, "s1", "", apCall), res(resDeniedOnce, apDigest, ""))
	if plain.Load() != 0 || able.Load() != 1 {
		t.Errorf("asked: %d times the responder without approvals, %d the one with", plain.Load(), able.Load())
	}
}

// TestApprovalInvalidCall: an invalid call is never shown to anyone; the
// model gets the contract's message.
func TestApprovalInvalidCall(t *testing.T) {
	var asked atomic.Int32
	o := &askuser.Orchestrator{Responder: counted(&asked, script())}
	_, err := approve(context.Background(), t, o, "s1", "call-1", `{"action":"Delete the bucket","reason":"old","risk":"catastrophic"}`)
	var ce *dialect.CallError
	if !errors.As(err, &ce) || ce.Message != `invalid request_approval arguments: risk: "catastrophic" is not a risk; allowed: "low", "medium", "high", "irreversible"` || ce.Path != "risk" {
		t.Errorf("Handle = %v; want the contract's message", err)
	}
	if asked.Load() != 0 {
		t.Error("an invalid call was asked")
	}
}

// TestApprovalFormDefaultsToRequestApproval: a Form built with approvaltool.Form
// and no Dialect gets the request_approval result.
func TestApprovalFormDefaultsToRequestApproval(t *testing.T) {
	f, err := approvaltool.Form(approval.Request{Action: apAction, Reason: "Archived", Risk: approval.RiskIrreversible, Details: apDetails}, 60)
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: script(scripted.Step{Answer: choose(approval.ApproveSession, "")}, scripted.Step{End: scripted.EndSubmit})}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Form: f})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, out, res(resApprovedSession, apDigest, ""))
	var plain map[string]any
	if err := json.Unmarshal(out.Result, &plain); err != nil || plain["status"] != "approved" {
		t.Errorf("result %s", out.Result)
	}
}
