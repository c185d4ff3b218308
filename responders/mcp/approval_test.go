package mcpresponder_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// Two request_approval calls: one whose action can be undone, and one
// whose cannot, which needs "approve" typed to confirm an approve.
const (
	restartCall = `{"action":"Restart the login service","reason":"It holds a stale certificate","risk":"medium",
		"details":"systemctl restart login\nhost: web-3","timeout_seconds":120}`
	deleteCall = `{"action":"Delete the bucket logs-2019","reason":"It is past its retention","risk":"irreversible",
		"details":"gsutil rm -r gs://logs-2019\n1,204 objects","timeout_seconds":120,"human_intent":"Cleaning up old storage"}`
)

// approvalRig is a rig serving request_approval.
func approvalRig(t *testing.T, version string, client *mcp.ClientOptions) *rig {
	t.Helper()
	return newRig(t, rigOptions{version: version, client: client, dialect: approvaltool.Dialect()})
}

// approve calls request_approval with args.
func (r *rig) approve(t *testing.T, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

// verdict is what a request_approval result says, without its message
// (which only puts it in words) and its digest (checked apart).
type verdict struct {
	Status         string  `json:"status"`
	DecidedBy      *string `json:"decided_by"`
	Note           *string `json:"note"`
	Ended          *string `json:"ended"`
	Remember       string  `json:"remember"`
	RememberedFrom string  `json:"remembered_from"`
}

func ptr(s string) *string { return &s }

// verdictOf reads a request_approval result, checking that its text and
// its structured content agree and that it carries its message and the
// digest of the action.
func verdictOf(t *testing.T, res *mcp.CallToolResult) verdict {
	t.Helper()
	m := structured(t, res)
	if msg, _ := m["message"].(string); msg == "" {
		t.Errorf("the result has no message: %v", m)
	}
	if d, _ := m["action_digest"].(string); !strings.HasPrefix(d, "sha256:") {
		t.Errorf("the result has no action digest: %v", m)
	}
	var v verdict
	if err := json.Unmarshal(mustJSON(t, m), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func wantVerdict(t *testing.T, res *mcp.CallToolResult, want verdict) {
	t.Helper()
	if diff := cmp.Diff(want, verdictOf(t, res)); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
}

var (
	approvedByUser = verdict{Status: "approved", DecidedBy: ptr("user")}
	deniedByUser   = verdict{Status: "denied", DecidedBy: ptr("user")}
)

func unresolved(ended string) verdict { return verdict{Status: "unresolved", Ended: ptr(ended)} }

// TestApprovalForm: what the client is shows for an approval, on every
// revision: the approval in words in the message (intent, risk, action,
// reason, each line of the details marked, all of it inert), and a form of
// a required yes/no with no default, "for the rest of this session", a
// note, and, for an action that cannot be undone, a required confirmation.
func TestApprovalForm(t *testing.T) {
	want := map[string]struct{ call, schema, message string }{
		"medium": {restartCall, `{"type":"object","properties":{
			"approve":{"type":"boolean","title":"Approve this action","description":"Yes permits the action described above; no denies it."},
			"remember":{"type":"boolean","title":"For the rest of this session","description":"Yes decides this same action the same way, without asking again, for the rest of this session.","default":false},
			"note":{"type":"string","title":"Note for your agent","description":"Optional: words your agent reads with your decision. Never a password or a key."}},
			"required":["approve"]}`,
			"Your agent asks your permission.\nRisk: medium\nAction: Restart the login service\nReason: It holds a stale certificate\n" +
				"Details:\n  | systemctl restart login\n  | host: web-3\n\n" +
				"You have 2 minutes to decide. After that nothing is decided, and your agent has no permission."},
		"irreversible": {deleteCall, `{"type":"object","properties":{
			"approve":{"type":"boolean","title":"Approve this action","description":"Yes permits the action described above, which cannot be undone (type approve below as well); no denies it."},
			"confirm":{"type":"string","title":"Type approve to confirm","description":"This action cannot be undone. To approve it, type approve here; to deny it, type anything else (or decline)."},
			"remember":{"type":"boolean","title":"For the rest of this session","description":"Yes decides this same action the same way, without asking again, for the rest of this session.","default":false},
			"note":{"type":"string","title":"Note for your agent","description":"Optional: words your agent reads with your decision. Never a password or a key."}},
			"required":["approve","confirm"]}`,
			"Cleaning up old storage\n\nYour agent asks your permission.\n!!! Risk: IRREVERSIBLE: this cannot be undone !!!\n" +
				"Action: Delete the bucket logs-2019\nReason: It is past its retention\n" +
				"Details:\n  | gsutil rm -r gs://logs-2019\n  | 1,204 objects\n\n" +
				"You have 2 minutes to decide. After that nothing is decided, and your agent has no permission.\n\n" +
				"To approve, answer yes to “Approve this action” and type approve to confirm."},
	}
	for _, v := range generations {
		for name, w := range want {
			t.Run(v+"/"+name, func(t *testing.T) {
				h, co := answering(reply("decline", nil))
				r := approvalRig(t, v, co)
				wantVerdict(t, r.approve(t, w.call), deniedByUser)
				seen := h.seen()
				if len(seen) != 1 {
					t.Fatalf("%d forms; want 1", len(seen))
				}
				if diff := cmp.Diff(decodeJSON(t, w.schema), decodeJSON(t, string(mustJSON(t, seen[0].RequestedSchema)))); diff != "" {
					t.Errorf("schema (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(w.message, seen[0].Message); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			})
		}
	}
	t.Run("inert", func(t *testing.T) {
		h, co := answering(reply("cancel", nil))
		r := approvalRig(t, v20251125, co)
		r.approve(t, `{"action":"Delete \u001b[2Kthe bucket","reason":"Old\u202e","risk":"high","details":"rm -r x\r\nRisk: low\n\u001b]52;c;aGk=\u0007"}`)
		msg := h.seen()[0].Message
		for _, bad := range []string{"\x1b", "\r", "\u202e", "\x07"} {
			if strings.Contains(msg, bad) {
				t.Errorf("the message holds %q as it is: %q", bad, msg)
			}
		}
		for _, line := range []string{"!! Risk: HIGH", `Action: Delete \x1b[2Kthe bucket`, `Reason: Old\u202e`, `  | rm -r x\r`, "  | Risk: low"} {
			if !strings.Contains(msg, line+"\n") {
				t.Errorf("the message %q has no line %q", msg, line)
			}
		}
	})
}

// TestApprovalDecisions: the person's reply decides, on every revision:
// accept with a yes approves (once, or for the session), with a no denies
// (once, or for the session), with the note passed on; decline denies;
// cancel decides nothing. Each decision is the user's, in the result and
// the journal.
func TestApprovalDecisions(t *testing.T) {
	cases := []struct {
		name    string
		action  string
		content map[string]any
		want    verdict
	}{
		{"approve once", "accept", map[string]any{"approve": true, "note": "go ahead"},
			verdict{Status: "approved", DecidedBy: ptr("user"), Note: ptr("go ahead")}},
		{"approve for the session", "accept", map[string]any{"approve": true, "remember": true},
			verdict{Status: "approved", DecidedBy: ptr("user"), Remember: "session"}},
		{"deny once", "accept", map[string]any{"approve": false, "note": "not on Fridays"},
			verdict{Status: "denied", DecidedBy: ptr("user"), Note: ptr("not on Fridays")}},
		{"deny for the session", "accept", map[string]any{"approve": false, "remember": true},
			verdict{Status: "denied", DecidedBy: ptr("user"), Remember: "session"}},
		{"decline", "decline", nil, deniedByUser},
		{"cancel", "cancel", nil, unresolved("dismissed")},
	}
	for _, v := range generations {
		for _, c := range cases {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				h, co := answering(reply(c.action, c.content))
				r := approvalRig(t, v, co)
				wantVerdict(t, r.approve(t, restartCall), c.want)
				if n := len(h.seen()); n != 1 {
					t.Errorf("%d forms shown; want 1", n)
				}
				recs := r.journal.records()
				if len(recs) != 1 || recs[0].Approval == nil || recs[0].Responder != "mcp" || recs[0].Contract != "request_approval" {
					t.Fatalf("journal: %s; want one approval's record, by the mcp responder", mustJSON(t, recs))
				}
				if c.want.Status != "unresolved" && recs[0].AnsweredBy != askuser.ByUser {
					t.Errorf("journal: answered by %q; want user", recs[0].AnsweredBy)
				}
			})
		}
	}
}

// TestApprovalRemembered: a decision for the session decides the same
// action again in the session without a form (decided by remembered, from
// the ask the person decided in); another action is asked anew.
func TestApprovalRemembered(t *testing.T) {
	for _, v := range generations {
		for _, approve := range []bool{true, false} {
			status := map[bool]string{true: "approved", false: "denied"}[approve]
			t.Run(v+"/"+status, func(t *testing.T) {
				h, co := answering(reply("accept", map[string]any{"approve": approve, "remember": true}), reply("decline", nil))
				r := approvalRig(t, v, co)
				wantVerdict(t, r.approve(t, restartCall), verdict{Status: status, DecidedBy: ptr("user"), Remember: "session"})
				first := r.journal.records()[0].AskID
				wantVerdict(t, r.approve(t, restartCall), verdict{Status: status, DecidedBy: ptr("remembered"), RememberedFrom: first})
				if n := len(h.seen()); n != 1 {
					t.Errorf("%d forms shown for two requests of the same action; want 1", n)
				}
				wantVerdict(t, r.approve(t, deleteCall), deniedByUser)
				if n := len(h.seen()); n != 2 {
					t.Errorf("%d forms shown; want the other action asked (2)", n)
				}
				recs := r.journal.records()
				if len(recs) != 3 || recs[1].RememberedFrom != first {
					t.Errorf("journal %s; want three records, the second remembered from %s", mustJSON(t, recs), first)
				}
			})
		}
	}
}

// TestApprovalIrreversible: an action that cannot be undone is approved
// only with "approve" typed to confirm: a yes without it, or with another
// word, is no decision, and the person is asked again, told why; a yes
// with it approves (case and spaces aside); a no with any word denies.
// Before 2026-07-28 the SDK's own client refuses to send a reply without
// the required confirmation, which the server takes as a mismatch too.
func TestApprovalIrreversible(t *testing.T) {
	for _, v := range generations {
		t.Run(v+"/without, then with", func(t *testing.T) {
			first := reply("accept", map[string]any{"approve": true})
			if v == v20260728 {
				first = reply("accept", map[string]any{"approve": true, "confirm": ""})
			}
			h, co := answering(
				first,
				reply("accept", map[string]any{"approve": true, "confirm": "yes"}),
				reply("accept", map[string]any{"approve": true, "confirm": "  Approve "}),
			)
			r := approvalRig(t, v, co)
			wantVerdict(t, r.approve(t, deleteCall), approvedByUser)
			seen := h.seen()
			if len(seen) != 3 {
				t.Fatalf("%d forms shown; want 3", len(seen))
			}
			if !strings.HasPrefix(seen[2].Message, "Your last answer could not be used: this action cannot be undone: to approve it, type approve in “Type approve to confirm”") {
				t.Errorf("form 3's message %q does not say the confirmation is missing", seen[2].Message)
			}
		})
		t.Run(v+"/deny with any word", func(t *testing.T) {
			_, co := answering(reply("accept", map[string]any{"approve": false, "confirm": "approve"}))
			r := approvalRig(t, v, co)
			wantVerdict(t, r.approve(t, deleteCall), deniedByUser)
		})
	}
}

// TestApprovalMismatch: content that does not match the form is no
// decision — a note that looks like a credential, a field not asked for,
// a confirmation where none was asked — and the person is asked again;
// after the third such reply the call is told so at once, on every
// protocol revision, and the ask waits for its deadline, which decides
// nothing.
func TestApprovalMismatch(t *testing.T) {
	for _, v := range generations {
		t.Run(v+"/asked again", func(t *testing.T) {
			h, co := answering(
				reply("accept", map[string]any{"approve": true, "note": ghToken}),
				reply("accept", map[string]any{"approve": true, "confirm": "approve"}),
				reply("accept", map[string]any{"approve": true, "note": "ok"}),
			)
			r := approvalRig(t, v, co)
			wantVerdict(t, r.approve(t, restartCall), verdict{Status: "approved", DecidedBy: ptr("user"), Note: ptr("ok")})
			seen := h.seen()
			if len(seen) != 3 {
				t.Fatalf("%d forms shown; want 3", len(seen))
			}
			for i, want := range []string{"Note for your agent: the note looks like a GitHub token", "the reply carries a field the form did not ask for"} {
				if !strings.HasPrefix(seen[i+1].Message, "Your last answer could not be used: "+want) {
					t.Errorf("form %d's message %q does not say %q", i+2, seen[i+1].Message, want)
				}
				if strings.Contains(seen[i+1].Message, ghToken) {
					t.Errorf("form %d's message echoes the credential", i+2)
				}
			}
			if s := string(mustJSON(t, r.journal.records())); strings.Contains(s, "ghp_") {
				t.Errorf("the journal holds the refused credential: %s", s)
			}
		})
		t.Run(v+"/three, then the deadline", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, co := answering(reply("accept", map[string]any{"approve": true, "confirm": "sure"}))
				r := approvalRig(t, v, co)
				start := time.Now()
				// The third reply's call (or retry) is told at once; the
				// deadline decides nothing, and journals the approval.
				res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(deleteCall)})
				if err != nil {
					t.Fatal(err)
				}
				wantRoundsCapped(t, v, res, "request_approval", time.Since(start))
				if !strings.Contains(text(res), "ends unresolved") {
					t.Errorf("the rounds' end of an approval %q does not say it ends unresolved", text(res))
				}
				time.Sleep(121 * time.Second)
				synctest.Wait()
				if recs := r.journal.records(); len(recs) != 1 || recs[0].Reason != askuser.ReasonDeadline {
					t.Errorf("journal %s; want one record, ended at the deadline", mustJSON(t, recs))
				}
				if n := len(h.seen()); n != 3 {
					t.Errorf("%d forms shown; want 3", n)
				}
			})
		})
	}
}

// TestApprovalDeadlineWhileFormShown: the deadline passes while the client
// shows the form: nothing is decided (unresolved, deadline), and the yes
// that comes later is ignored.
func TestApprovalDeadlineWhileFormShown(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				late := make(chan struct{})
				_, co := answering(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					time.Sleep(150 * time.Second) // within a requestState's grace
					close(late)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "remember": true}}, nil
				})
				r := approvalRig(t, v, co)
				wantVerdict(t, r.approve(t, restartCall), unresolved("deadline"))
				<-late
				synctest.Wait()
				recs := r.journal.records()
				if len(recs) != 1 || recs[0].Reason != askuser.ReasonDeadline || recs[0].AnsweredBy != askuser.ByTimeout {
					t.Errorf("journal: %s; want one record, ended at the deadline", mustJSON(t, recs))
				}
				cs, err := r.o.Consents.Consents(context.Background(), "mcp")
				if err != nil || len(cs) != 0 {
					t.Errorf("consents %v, %v; the late reply remembered a decision", cs, err)
				}
			})
		})
	}
}

// TestApprovalNoElicitation: a client without elicitation, or one that
// takes only links, cannot be asked: the approval is unresolved at once
// (unattended), never approved.
func TestApprovalNoElicitation(t *testing.T) {
	linksOnly := func() *mcp.ClientOptions {
		_, co := answering(reply("accept", map[string]any{"approve": true}))
		co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
		return co
	}
	for _, c := range []struct {
		name   string
		client func() *mcp.ClientOptions
	}{
		{v20250618, nil}, {v20251125, nil}, {v20260728, nil},
		{v20251125 + "/links only", linksOnly}, {v20260728 + "/links only", linksOnly},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var co *mcp.ClientOptions
				if c.client != nil {
					co = c.client()
				}
				r := approvalRig(t, c.name[:len(v20250618)], co)
				start := time.Now()
				wantVerdict(t, r.approve(t, restartCall), unresolved("unattended"))
				if d := time.Since(start); d != 0 {
					t.Errorf("the result took %v; want it at once", d)
				}
				if recs := r.journal.records(); len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUnattended {
					t.Errorf("journal %s; want one record answered by unattended", mustJSON(t, recs))
				}
			})
		})
	}
}

// TestApprovalFailedElicitation: a client whose elicitation fails never
// approves. Before 2026-07-28 the approval is unresolved at once
// (unattended); from it the SDK's client gives up the call, never
// retries, and the approval ends at its deadline, journaled.
func TestApprovalFailedElicitation(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, co := answering(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return nil, errors.New("the client's window crashed")
				})
				r := approvalRig(t, v, co)
				res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(restartCall)})
				switch {
				case v == v20260728 && err == nil:
					t.Fatalf("the call ended with %s; want the SDK's client to give it up", mustJSON(t, res))
				case v == v20260728:
					time.Sleep(121 * time.Second)
					synctest.Wait()
				case err != nil:
					t.Fatal(err)
				default:
					wantVerdict(t, res, unresolved("unattended"))
				}
				want := askuser.ReasonUnattended
				if v == v20260728 {
					want = askuser.ReasonDeadline
				}
				if recs := r.journal.records(); len(recs) != 1 || recs[0].Reason != want {
					t.Errorf("journal %s; want one record, %s", mustJSON(t, recs), want)
				}
			})
		})
	}
}

// TestApprovalAndAskUser: one server offers ask_user and request_approval
// side by side through one orchestrator; tools/list shows both, each as
// package schema renders it with its output schema, and each is answered
// through the client's elicitation.
func TestApprovalAndAskUser(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Logger: quiet}
			askTool := &mcpresponder.Tool{Orchestrator: o, ProgressInterval: -1}
			approvalTool := &mcpresponder.Tool{Orchestrator: o, Dialect: approvaltool.Dialect(), ProgressInterval: -1}
			server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
			for _, tl := range []*mcpresponder.Tool{askTool, approvalTool} {
				if err := mcpresponder.AddTool(server, tl); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() {
				askTool.Close()
				approvalTool.Close()
				o.WaitResponders()
			})
			_, co := answering(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if strings.Contains(req.Params.Message, "permission") {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
			})
			cs := connect(t, server, v, co)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) != 2 {
				t.Fatalf("%d tools; want ask_user and request_approval", len(list.Tools))
			}
			for _, tl := range []*mcpresponder.Tool{askTool, approvalTool} {
				def, err := tl.Definition()
				if err != nil {
					t.Fatal(err)
				}
				var listed *mcp.Tool
				for _, l := range list.Tools {
					if l.Name == def.Name {
						listed = l
					}
				}
				if listed == nil {
					t.Fatalf("tools/list has no %s", def.Name)
				}
				if diff := cmp.Diff(decodeJSON(t, string(mustJSON(t, def))), decodeJSON(t, string(mustJSON(t, listed)))); diff != "" {
					t.Errorf("%s (-definition +listed):\n%s", def.Name, diff)
				}
				if listed.OutputSchema == nil {
					t.Errorf("%s has no output schema", def.Name)
				}
			}
			r := &rig{cs: cs}
			wantVerdict(t, r.approve(t, restartCall), approvedByUser)
			wantResult(t, r.call(t, deployCall), `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
		})
	}
}

// TestApprovalInvalidCall: request_approval's decoder judges the
// arguments; the model gets its message as an error result, and nobody is
// asked.
func TestApprovalInvalidCall(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			h, co := answering(reply("accept", map[string]any{"approve": true}))
			r := approvalRig(t, v, co)
			res := r.approve(t, `{"action":"Delete it","reason":"Old","risk":"catastrophic"}`)
			if !res.IsError || !strings.HasPrefix(text(res), "invalid request_approval arguments: ") || res.StructuredContent != nil {
				t.Errorf("isError %v, text %q; want an error result with the contract's message", res.IsError, text(res))
			}
			if len(h.seen()) != 0 {
				t.Error("the client was asked about an invalid call")
			}
		})
	}
}
