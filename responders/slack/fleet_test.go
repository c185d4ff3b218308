package slack

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
	"github.com/askuser-go/askuser/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// A slackReplica is one replica of a fleet: an orchestrator on the shared
// pending-ask store and its Slack responder, on the shared notes.
type slackReplica struct {
	o *askuser.Orchestrator
	r *Responder
}

// fleetOf is what a fleet's replicas share: the fake Slack, the
// pending-ask store and the responders' notes.
type fleetOf struct {
	t     *testing.T
	f     *slacktest.Fake
	st    store.Pending
	notes store.Notes
}

func newFleetOf(t *testing.T) *fleetOf {
	return &fleetOf{t: t, f: slacktest.NewHandler(), st: store.NewMemory(0), notes: &store.MemoryNotes{}}
}

// replica starts a replica; close stops it (as a process that goes away:
// its asks stay pending).
func (fl *fleetOf) replica(opts Options) (rp *slackReplica, close func()) {
	t := fl.t
	t.Helper()
	opts.Notes, opts.Logger = fl.notes, quiet
	r := newResponder(t, fl.f, opts)
	o := &askuser.Orchestrator{Responder: r, Asks: fl.st, Logger: quiet}
	if err := o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed := false
	close = func() {
		if closed {
			return
		}
		closed = true
		_ = o.Close()
		_ = r.Close()
		o.WaitResponders()
	}
	t.Cleanup(close)
	return &slackReplica{o: o, r: r}, close
}

// begin begins an ask on rp, and returns a channel with its outcome, as
// rp's caller gets it.
func (rp *slackReplica) begin(t *testing.T, toolCallID, call string) <-chan *askuser.Outcome {
	t.Helper()
	if _, err := rp.o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: toolCallID, Arguments: []byte(call)}); err != nil {
		t.Fatal(err)
	}
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, err := rp.o.Await(context.Background(), "s", toolCallID)
		if err != nil && err != askuser.ErrOrchestratorClosed {
			t.Errorf("Await: %v", err)
		}
		out <- res
	}()
	return out
}

// messages drains the fake's posts: the asks' messages (not the nudges in
// their threads).
func messages(f *slacktest.Fake) []slacktest.Call {
	var out []slacktest.Call
	for {
		select {
		case c := <-f.Posted:
			if c.Form.Get("thread_ts") == "" {
				out = append(out, c)
			}
		default:
			return out
		}
	}
}

func updates(f *slacktest.Fake) []slacktest.Call {
	var out []slacktest.Call
	for {
		select {
		case c := <-f.Updated:
			out = append(out, c)
		default:
			return out
		}
	}
}

// onlyMessage waits for the fleet to settle, and returns the one message
// posted.
func onlyMessage(t *testing.T, f *slacktest.Fake) slacktest.Call {
	t.Helper()
	synctest.Wait()
	ms := messages(f)
	if len(ms) != 1 {
		t.Fatalf("%d messages were posted for one ask; want 1", len(ms))
	}
	return ms[0]
}

// editedOnce checks that the message was edited once, to say want.
func (fl *fleetOf) editedOnce(t *testing.T, posted slacktest.Call, want string) {
	t.Helper()
	synctest.Wait()
	pe, err := fl.notes.Get(context.Background(), msgKey(askIDOf(t, posted)))
	if err != nil {
		t.Fatal(err)
	}
	var n msgNote
	_ = json.Unmarshal(pe.Data, &n)
	if n.State != stateEdited || n.TS == "" {
		t.Errorf("the message's note %+v; want it edited", n)
	}
	ups := updates(fl.f)
	if len(ups) != 1 {
		t.Fatalf("the message was edited %d times; want once", len(ups))
	}
	up := ups[0]
	if up.Form.Get("ts") != n.TS || up.Form.Get("channel") != posted.Form.Get("channel") {
		t.Errorf("chat.update of %s/%s; want the posted message", up.Form.Get("channel"), up.Form.Get("ts"))
	}
	if b := up.Form.Get("blocks"); !strings.Contains(b, want) || strings.Contains(b, `"actions"`) {
		t.Errorf("the edited message %s; want it to say %q, with no buttons", b, want)
	}
}

// TestFleetClickOnOtherReplica: two replicas run the same Slack app; an
// ask begun on A is posted once; a click posted to B's endpoint answers
// it for A's caller; the same signed click replayed to A changes nothing;
// the message is edited once.
func TestFleetClickOnOtherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, _ := fl.replica(Options{})
		b, _ := fl.replica(Options{})
		out := a.begin(t, "c", deployCall)
		posted := onlyMessage(t, fl.f)
		id := askIDOf(t, posted)
		pick := signed(click("T1", "U1", actionPick, id+"|0|1"), time.Now(), signingSecret)
		replay := pick.Clone(context.Background())
		body, _ := io.ReadAll(pick.Body)
		pick.Body, replay.Body = io.NopCloser(strings.NewReader(string(body))), io.NopCloser(strings.NewReader(string(body)))
		if rec := serve(b.r, pick); rec.Code != 200 {
			t.Fatalf("the click on B: %d %s", rec.Code, rec.Body)
		}
		o := <-out
		if o.AnsweredBy != askuser.ByUser || o.Principal != "slack:T1/U1" || o.Answers[0].Selected[0] != "production" {
			t.Fatalf("A's caller got %+v; want production, answered by slack:T1/U1", o)
		}
		fl.editedOnce(t, posted, "Answered by \\u003c@U1\\u003e in Slack")
		n := len(fl.f.Methods())
		if rec := serve(a.r, replay); rec.Code != 200 {
			t.Errorf("the replay on A: %d", rec.Code)
		}
		synctest.Wait()
		if got := fl.f.Methods()[n:]; len(got) != 0 {
			t.Errorf("the replay on A made %v; want nothing", got)
		}
	})
}

// TestFleetAnsweredElsewhereEdits: an ask posted by A and answered on B
// (as B's card does, through Sessions) has its message edited once.
func TestFleetAnsweredElsewhereEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, _ := fl.replica(Options{})
		b, _ := fl.replica(Options{})
		out := a.begin(t, "c", deployCall)
		posted := onlyMessage(t, fl.f)
		h, _, release, err := b.r.sessions.Load().Find(context.Background(), "s", askIDOf(t, posted))
		if err != nil || h == nil {
			t.Fatalf("Find on B: %v", err)
		}
		h.SetPrincipal("card:alice")
		if err := h.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
			t.Fatal(err)
		}
		if err := h.Submit(); err != nil {
			t.Fatal(err)
		}
		release()
		if o := <-out; o.Principal != "card:alice" {
			t.Fatalf("outcome %+v; want answered by card:alice", o)
		}
		fl.editedOnce(t, posted, "Answered by card:alice")
	})
}

// TestFleetDeadlineEdits: an ask nobody answers ends at its deadline, on
// whichever replica its timer reaches, and its message says so, once.
func TestFleetDeadlineEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, _ := fl.replica(Options{})
		fl.replica(Options{})
		out := a.begin(t, "c", deployCall)
		posted := onlyMessage(t, fl.f)
		if o := <-out; o.AnsweredBy != askuser.ByTimeout {
			t.Fatalf("outcome %+v; want decided by the deadline", o)
		}
		fl.editedOnce(t, posted, "Decided by the deadline")
	})
}

// TestFleetRestartedReplicaEdits: A posts an ask and goes away; A',
// started on the same stores, edits the message when the ask ends (here at
// its deadline), and takes a click for it meanwhile.
func TestFleetRestartedReplicaEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, closeA := fl.replica(Options{})
		a.begin(t, "c", `{"questions":[{"id":"a","header":"A","question":"A?","options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]},{"id":"b","header":"B","question":"B?","options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]}],"timeout_seconds":120}`)
		posted := onlyMessage(t, fl.f)
		id := askIDOf(t, posted)
		closeA()
		a2, _ := fl.replica(Options{})
		synctest.Wait()
		if rec := serve(a2.r, signed(click("T1", "U1", actionPick, id+"|0|0"), time.Now(), signingSecret)); rec.Code != 200 {
			t.Fatalf("a click on A': %d", rec.Code)
		}
		synctest.Wait()
		if got := fl.f.Ephemerals(); len(got) != 1 || !strings.Contains(got[0], "Still to answer: B") {
			t.Errorf("ephemerals %q; want A' to take the click, and say what is left", got)
		}
		time.Sleep(2 * time.Minute)
		fl.editedOnce(t, posted, "Decided by the deadline")
	})
}

// TestFleetSweepEditsOrphan: A posts an ask and goes away for good; B,
// which was running all along and holds nothing of the ask, edits its
// message within a sweep of its ending at the deadline.
func TestFleetSweepEditsOrphan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, closeA := fl.replica(Options{})
		fl.replica(Options{})
		a.begin(t, "c", deployCall)
		posted := onlyMessage(t, fl.f)
		closeA()
		time.Sleep(2*time.Minute + Sweep)
		fl.editedOnce(t, posted, "Decided by the deadline")
	})
}

// TestFleetIrreversibleOnOtherReplica: the confirmation code of an
// irreversible approval posted by A is checked on B, from the message's
// note.
func TestFleetIrreversibleOnOtherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, _ := fl.replica(Options{Rand: strings.NewReader("\x00\x01\x02\x03")})
		b, _ := fl.replica(Options{})
		if _, err := a.o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(),
			Arguments: []byte(`{"action":"Drop the table","reason":"cleanup","risk":"irreversible"}`)}); err != nil {
			t.Fatal(err)
		}
		posted := onlyMessage(t, fl.f)
		id := askIDOf(t, posted)
		serve(b.r, signed(click("T1", "U1", actionApprove, id+"|"+approval.ApproveOnce), time.Now(), signingSecret))
		synctest.Wait()
		if len(fl.f.Opened) != 1 {
			t.Fatal("B did not open the confirmation")
		}
		code := func(c string) map[string]map[string]any {
			return map[string]map[string]any{"code": {"v": map[string]any{"type": "plain_text_input", "value": c}}}
		}
		if rec := serve(b.r, signed(submission("T1", "U1", viewConfirm, id+"|"+approval.ApproveOnce, code("AAAA")), time.Now(), signingSecret)); !strings.Contains(rec.Body.String(), "not the code") {
			t.Errorf("a wrong code on B: %s; want it refused", rec.Body)
		}
		if rec := serve(b.r, signed(submission("T1", "U1", viewConfirm, id+"|"+approval.ApproveOnce, code("ACDE")), time.Now(), signingSecret)); rec.Body.Len() != 0 {
			t.Errorf("the right code on B: %s", rec.Body)
		}
		out, err := a.o.Await(context.Background(), "s", "c")
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved {
			t.Errorf("verdict %+v; want approved", v)
		}
	})
}
