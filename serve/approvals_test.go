package serve

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
)

// approver takes every approval it is given, approving it, as a responder
// that admits the person apart from the agent would (Slack's allowed
// users, say).
type approver struct{ asked chan string }

func (p approver) Respond(ctx context.Context, a *askuser.Ask) error {
	p.asked <- a.ID()
	if err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.ApproveOnce}}); err != nil {
		return err
	}
	return a.Submit()
}

func (approver) CanTakeApprovals() bool { return true }

// TestApprovalsServedWhenConfigured: with Config.Approvals, a
// request_approval call is taken and decided by the responder that takes
// approvals; and nothing else is asked.
func TestApprovalsServedWhenConfigured(t *testing.T) {
	p := approver{asked: make(chan string, 1)}
	o := &askuser.Orchestrator{Responder: p, Logger: slog.New(slog.DiscardHandler)}
	t.Cleanup(func() { o.Close() })
	srv := httptest.NewServer(NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Approvals: true}))
	t.Cleanup(srv.Close)
	a := newAgentClient(t, testToken)
	r := a.do("POST", srv.URL+"/v1/calls", callBody("s", "c1", "request_approval", `{"action":"Deploy v2","reason":"release","risk":"medium"}`), nil)
	if r.code != http.StatusOK || !strings.Contains(r.body, `"approved"`) {
		t.Fatalf("request_approval with Approvals: %d %s; want 200 and approved", r.code, r.body)
	}
	if len(p.asked) != 1 {
		t.Errorf("the approving responder was asked %d times; want once", len(p.asked))
	}
}

// TestApprovalsRefusedByDefault: without Config.Approvals the API still
// refuses request_approval, naming why; Card.URL is the card URL the API
// hands out.
func TestApprovalsRefusedByDefault(t *testing.T) {
	rep := newReplica(t, nil, nil)
	a := newAgentClient(t, testToken)
	j := a.callAsync(rep.base, "s", "c2", `{"questions":[{"id":"q","header":"Q","question":"Which?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}],"timeout_seconds":60}`)
	if got := rep.card.URL(rep.base, "s"); got != j.CardURL {
		t.Errorf("Card.URL %q; the API handed out %q", got, j.CardURL)
	}
	r := a.do("POST", rep.base+"/v1/calls", callBody("s", "c1", "request_approval", `{"action":"Deploy v2","reason":"release"}`), nil)
	if r.code != http.StatusBadRequest || !strings.Contains(r.body, "not served by the agent API") {
		t.Fatalf("request_approval without Approvals: %d %s; want 400", r.code, r.body)
	}
}
