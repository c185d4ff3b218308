package mcpresponder_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// approvalCall calls request_approval on a raw 2026-07-28 client with
// args and, on a retry, the reply to the last form and its requestState.
func approvalCall(t *testing.T, cs *mcp.ClientSession, args, state string, res *mcp.ElicitResult) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(args), RequestState: state}
	if res != nil {
		p.InputResponses = mcp.InputResponseMap{"askuser": res}
	}
	out, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("CallTool: %v (a JSON-RPC error; a refusal must be a result)", err)
	}
	return out
}

func approvalServer(t *testing.T) (*mcp.Server, *memJournal) {
	t.Helper()
	s, _, j := server(t, nil, func(tl *mcpresponder.Tool) { tl.Dialect = approvaltool.Dialect() })
	return s, j
}

// TestApprovalRoundTripRaw: on 2026-07-28, replies the SDK's own client
// would not send are no decision either: a yes that is not a boolean, a
// yes to an action that cannot be undone without the confirmation, a
// field not asked for; each retry returns the form again with what was
// wrong, and after the third nothing more is asked: the retry is told so
// at once, and the approval ends at the deadline, unresolved.
func TestApprovalRoundTripRaw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, j := approvalServer(t)
		cs := rawClient(t, s, "client")
		_, state := form(t, approvalCall(t, cs, deleteCall, "", nil))
		for i, bad := range []struct {
			content map[string]any
			want    string
		}{
			{map[string]any{"approve": "yes", "confirm": "approve"}, "Approve this action: the reply is not yes or no"},
			{map[string]any{"approve": true}, "Type approve to confirm: needs an answer"},
		} {
			p, next := form(t, approvalCall(t, cs, deleteCall, state, accept(bad.content)))
			if !strings.HasPrefix(p.Message, "Your last answer could not be used: "+bad.want) {
				t.Errorf("reply %d: message %q does not say %q", i+1, p.Message, bad.want)
			}
			state = next
		}
		start := time.Now()
		res := approvalCall(t, cs, deleteCall, state, accept(map[string]any{"approve": true, "confirm": "approve", "sudo": true}))
		wantRoundsCapped(t, v20260728, res, "request_approval", time.Since(start))
		time.Sleep(121 * time.Second)
		synctest.Wait()
		if recs := j.records(); len(recs) != 1 || recs[0].Reason != askuser.ReasonDeadline {
			t.Errorf("journal %s; want one record, ended at the deadline", mustJSON(t, recs))
		}
	})
}

// TestApprovalRoundTripLate: a retry carrying a yes after the deadline,
// within the requestState's grace, gets the approval's result, unresolved:
// the late yes decides nothing, and remembers nothing.
func TestApprovalRoundTripLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, j := approvalServer(t)
		cs := rawClient(t, s, "client")
		_, state := form(t, approvalCall(t, cs, restartCall, "", nil))
		time.Sleep(130 * time.Second)
		wantVerdict(t, approvalCall(t, cs, restartCall, state, accept(map[string]any{"approve": true, "remember": true})), unresolved("deadline"))
		// Asked again, the same action is not remembered: a form comes.
		form(t, approvalCall(t, cs, restartCall, "", nil))
		if recs := j.records(); len(recs) != 1 || recs[0].Reason != askuser.ReasonDeadline {
			t.Errorf("journal %s; want the one record of the deadline", mustJSON(t, recs))
		}
	})
}

// A randomReply is one thing a client does with an approval's form.
type randomReply struct {
	Kind    string // "reply", "error" (the client fails, or gives up), "late" (a yes after the deadline)
	Action  string
	Content map[string]any
}

// The ways a random reply spoils content that would otherwise match the
// form; absent stands for a field left out.
var (
	absent  = struct{}{}
	actions = []string{"accept", "accept", "accept", "accept", "accept", "accept", "decline", "cancel", "maybe", ""}
	spoils  = []struct {
		field string
		value any
	}{
		{"approve", "true"}, {"approve", 1.0}, {"approve", nil}, {"approve", absent},
		{"remember", "yes"}, {"note", ghToken}, {"note", 3.0},
		{"confirm", "approved"}, {"confirm", ""}, {"confirm", 1.0}, {"confirm", nil}, {"confirm", absent}, {"confirm", "approve"},
		{"sudo", true},
	}
)

// randomReplies draws what a client does with each form of one approval:
// mostly accept, with content that matches the form or is spoilt in one
// or two ways, and sometimes decline, cancel, an unknown action, a
// failure or a yes after the deadline.
func randomReplies(rng *rand.Rand, irreversible bool) []randomReply {
	out := make([]randomReply, 1+rng.IntN(4))
	for i := range out {
		switch n := rng.IntN(20); {
		case n == 0:
			out[i] = randomReply{Kind: "error"}
			continue
		case n == 1:
			c := map[string]any{"approve": true, "confirm": "approve"}
			out[i] = randomReply{Kind: "late", Action: "accept", Content: c}
			continue
		}
		r := randomReply{Kind: "reply", Action: actions[rng.IntN(len(actions))]}
		if r.Action == "accept" || rng.IntN(4) == 0 {
			r.Content = map[string]any{"approve": rng.IntN(3) > 0}
			if rng.IntN(2) == 0 {
				r.Content["remember"] = rng.IntN(2) == 0
			}
			if rng.IntN(2) == 0 {
				r.Content["note"] = "ok"
			}
			if irreversible {
				r.Content["confirm"] = []string{"approve", " APPROVE ", "no"}[rng.IntN(3)]
			}
			for range rng.IntN(3) {
				sp := spoils[rng.IntN(len(spoils))]
				if sp.value == absent {
					delete(r.Content, sp.field)
				} else {
					r.Content[sp.field] = sp.value
				}
			}
		}
		out[i] = r
	}
	return out
}

// approves reports whether the reply, in time, is a person's approve as
// the form asks it: accept, a boolean yes, only the fields asked, each of
// its type, a note that is no credential, and, for an action that cannot
// be undone, "approve" typed to confirm.
func (r randomReply) approves(irreversible bool) bool {
	if r.Kind != "reply" || r.Action != "accept" || r.Content["approve"] != true {
		return false
	}
	for k, v := range r.Content {
		switch k {
		case "approve":
		case "remember":
			if _, ok := v.(bool); !ok && v != nil {
				return false
			}
		case "note":
			if s, ok := v.(string); (!ok && v != nil) || s == ghToken {
				return false
			}
		case "confirm":
			if !irreversible {
				return false
			}
		default:
			return false
		}
	}
	if irreversible {
		s, ok := r.Content["confirm"].(string)
		return ok && strings.EqualFold(strings.TrimSpace(s), "approve")
	}
	return true
}

func (r randomReply) result() *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: r.Action, Content: r.Content}
}

// TestApprovalOnlyYesApproves is a property: whatever a client replies —
// accept with any content, decline, cancel, an unknown action, a failure,
// a reply after the deadline, in any order — an approval ends approved
// only when one reply, in time, was accept with a boolean yes that
// matches the form (and "approve" typed to confirm an action that cannot
// be undone), and then it is the user's decision. Replies are drawn from
// a fixed seed, on every revision with the SDK's own client (which checks
// content against the schema before it sends it) and on 2026-07-28 with a
// raw client (which sends anything).
func TestApprovalOnlyYesApproves(t *testing.T) {
	const trials = 120
	drivers := append(append([]string(nil), generations...), "raw")
	approved := map[string]int{}
	for di, driver := range drivers {
		rng := rand.New(rand.NewPCG(16, uint64(di)))
		for i := range trials {
			irreversible := rng.IntN(2) == 0
			replies := randomReplies(rng, irreversible)
			name := fmt.Sprintf("%s/%d", driver, i)
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					status := approvalTrial(t, driver, irreversible, replies)
					if status == approval.Approved {
						approved[driver]++
					}
				})
			})
		}
	}
	t.Logf("approved, of %d trials each: %v", trials, approved)
	// The property holds vacuously if nothing was ever approved: the draws
	// must reach both sides.
	for _, d := range drivers {
		if approved[d] == 0 || approved[d] == trials {
			t.Errorf("%s: %d of %d trials approved; the draws do not reach both sides of the property", d, approved[d], trials)
		}
	}
}

// approvalTrial plays the replies to one approval and checks the property
// on the approval's journal record; it returns the status.
func approvalTrial(t *testing.T, driver string, irreversible bool, replies []randomReply) string {
	call := restartCall
	if irreversible {
		call = deleteCall
	}
	var mu sync.Mutex
	var used []randomReply // the replies the client gave, in order
	give := func(r randomReply) {
		mu.Lock()
		defer mu.Unlock()
		used = append(used, r)
	}
	var j *memJournal
	if driver == "raw" {
		var s *mcp.Server
		s, j = approvalServer(t)
		cs := rawClient(t, s, "client")
		res := approvalCall(t, cs, call, "", nil)
		for _, r := range replies {
			if !res.NeedsInput() {
				break
			}
			give(r)
			if r.Kind == "error" {
				break // the client gives up
			}
			if r.Kind == "late" {
				time.Sleep(130 * time.Second)
			}
			res = approvalCall(t, cs, call, res.RequestState, r.result())
		}
	} else {
		var n int
		_, co := answering(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			i := n
			n++
			mu.Unlock()
			if i >= len(replies) {
				time.Sleep(300 * time.Second) // the person walked away
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			r := replies[i]
			give(r)
			switch r.Kind {
			case "error":
				return nil, errors.New("the client failed")
			case "late":
				time.Sleep(130 * time.Second)
			}
			return r.result(), nil
		})
		rg := approvalRig(t, driver, co)
		j = rg.journal
		_, _ = rg.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(call)})
	}
	time.Sleep(400 * time.Second) // past every deadline and grace
	synctest.Wait()

	recs := j.records()
	if len(recs) != 1 {
		t.Fatalf("journal %s; want one record", mustJSON(t, recs))
	}
	var res struct {
		Status    string  `json:"status"`
		DecidedBy *string `json:"decided_by"`
	}
	if err := json.Unmarshal(recs[0].Result, &res); err != nil {
		t.Fatalf("the record's result %s: %v", recs[0].Result, err)
	}
	mu.Lock()
	defer mu.Unlock()
	yes, no := false, false
	for _, r := range used {
		yes = yes || r.approves(irreversible)
		no = no || (r.Kind == "reply" && (r.Action == "decline" || (r.Action == "accept" && r.Content["approve"] == false)))
	}
	switch {
	case res.Status == approval.Approved && !yes:
		t.Errorf("approved (%s), though no reply in time approved; replies %s", recs[0].Result, shown(t, used))
	case res.Status == approval.Approved && (res.DecidedBy == nil || *res.DecidedBy != "user"):
		t.Errorf("approved, decided by %v; want the user", res.DecidedBy)
	case res.Status == approval.Denied && !no:
		t.Errorf("denied (%s), though no reply said no; replies %s", recs[0].Result, shown(t, used))
	}
	return res.Status
}

// shown writes replies for a failure message, with the credential the
// draws put in a note left out.
func shown(t *testing.T, replies []randomReply) string {
	return strings.ReplaceAll(string(mustJSON(t, replies)), ghToken, "<a credential>")
}
