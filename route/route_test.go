package route_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/route"
	"github.com/google/go-cmp/cmp"
)

func minutes(n int) route.Duration { return route.Duration(time.Duration(n) * time.Minute) }

var oncall = route.Route{
	Name: "oncall",
	Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops"}, After: minutes(2)},
		{Responders: []string{"email"}, People: []string{"lead@example.com"}, After: minutes(10)},
	},
}

func TestDescribe(t *testing.T) {
	got := oncall.Describe()
	want := "route oncall: ask on the card; after 2m, also the Slack channel #ops; after 10m more, also lead@example.com by email; repeats 0 times"
	if got != want {
		t.Errorf("Describe() =\n%s\nwant\n%s", got, want)
	}
	r := route.Route{
		Name: "prod-delete",
		Steps: []route.Step{
			{Responders: []string{"card", "email:sec@example.com"}},
			{People: []string{"group:sre"}, Responders: []string{"slack"}, After: minutes(1), From: route.AnchorNudge},
			{People: []string{"cto@example.com"}, After: route.Duration(90 * time.Minute), From: route.AnchorStart},
		},
		Quorum: &route.Quorum{Required: 2, Eligible: []route.Approver{{Group: "sre", Members: []string{"alice", "bob"}}, {Principal: "carol"}}, ExcludeOwner: true},
	}
	want = "route prod-delete: ask on the card and sec@example.com by email; 1m after the nudge, also the group sre on Slack; 1h30m after the start, also cto@example.com; repeats 0 times; approvals need 2 of the group sre (counts once: alice, bob), carol; a deny by any of them ends it denied; neither the requester nor the session's owner ever approves"
	if got := r.Describe(); got != want {
		t.Errorf("Describe() =\n%s\nwant\n%s", got, want)
	}
}

// TestPlan: when each step begins, for every anchor, with a repeat, and
// that the deadline cuts the plan.
func TestPlan(t *testing.T) {
	times := route.Times{Start: t0, Nudge: at(240), Expires: at(300)}
	tests := []struct {
		name string
		r    route.Route
		want []route.Begin
	}{{
		name: "from the previous step",
		r:    oncall,
		want: []route.Begin{{0, 0, t0}, {0, 1, at(120)}}, // step 2 at 12m is past the 5m deadline
	}, {
		name: "from the start and the nudge",
		r: route.Route{Steps: []route.Step{
			{Responders: []string{"card"}},
			{Responders: []string{"slack:#ops"}, After: route.Duration(30 * time.Second), From: route.AnchorStart},
			{Responders: []string{"email"}, From: route.AnchorNudge},
			{Responders: []string{"tui"}, After: route.Duration(10 * time.Second), From: route.AnchorNudge},
		}},
		want: []route.Begin{{0, 0, t0}, {0, 1, at(30)}, {0, 2, at(240)}, {0, 3, at(250)}},
	}, {
		name: "a step counted from the nudge never begins before the one before it",
		r: route.Route{Steps: []route.Step{
			{Responders: []string{"card"}},
			{Responders: []string{"slack:#ops"}, After: minutes(4) + route.Duration(10*time.Second)},
			{Responders: []string{"email"}, From: route.AnchorNudge},
		}},
		want: []route.Begin{{0, 0, t0}, {0, 1, at(250)}, {0, 2, at(250)}},
	}, {
		name: "a repeat, cut by the deadline",
		r: route.Route{
			Steps: []route.Step{
				{Responders: []string{"card"}},
				{Responders: []string{"slack:#ops"}, After: minutes(1)},
			},
			Repeat: 3, RepeatAfter: minutes(1),
		},
		want: []route.Begin{{0, 0, t0}, {0, 1, at(60)}, {1, 0, at(120)}, {1, 1, at(180)}, {2, 0, at(240)}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.Check(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.r.Plan(times)); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	card := route.Step{Responders: []string{"card"}}
	tests := []struct {
		r    route.Route
		want string
	}{
		{route.Route{}, "steps: a route needs at least one step"},
		{route.Route{Steps: []route.Step{{}}}, "steps[0]: a step must name responders, people, or both"},
		{route.Route{Steps: []route.Step{{Responders: []string{"sms"}}}}, `steps[0].responders[0]: "sms" is not a channel; allowed: card, tui, stdio, mcp, slack, email, webhook`},
		{route.Route{Steps: []route.Step{{Responders: []string{"card:x"}}}}, `a card channel takes no target`},
		{route.Route{Steps: []route.Step{{Responders: []string{"webhook"}}}}, `names no webhook`},
		{route.Route{Steps: []route.Step{{People: []string{"a b"}}}}, `steps[0].people[0]: "a b": a principal must not contain spaces`},
		{route.Route{Steps: []route.Step{{People: []string{"group:SRE"}}}}, `a group name after group: must be`},
		{route.Route{Steps: []route.Step{{Responders: []string{"card"}, After: minutes(1)}}}, "steps[0]: the first step begins with the ask"},
		{route.Route{Steps: []route.Step{card, {Responders: []string{"email"}}}}, "steps[1].after: a step that begins with the previous one is the same step"},
		{route.Route{Steps: []route.Step{card, {Responders: []string{"email"}, After: route.Duration(1500 * time.Millisecond)}}}, "steps[1].after: must be a whole number of seconds"},
		{route.Route{Steps: []route.Step{card, {Responders: []string{"email"}, After: minutes(1), From: "end"}}}, `steps[1].from: "end" is not an anchor; allowed: previous (the default), start, nudge`},
		{route.Route{Steps: []route.Step{card, {Responders: []string{"email"}, After: minutes(5)}, {Responders: []string{"slack"}, After: minutes(3), From: route.AnchorStart}}}, "steps[2].after: 3m0s after the start is not after steps[1], which begins 5m0s after the start"},
		{route.Route{Steps: []route.Step{card}, Repeat: 2}, "repeat_after: a route that repeats needs the delay"},
		{route.Route{Steps: []route.Step{card}, RepeatAfter: minutes(1)}, "repeat_after: given, but the route does not repeat"},
		{route.Route{Steps: []route.Step{card}, Repeat: 101, RepeatAfter: minutes(1)}, "repeat: must be between 0 and 100"},
		{route.Route{Steps: []route.Step{card, {Responders: []string{"email"}, After: minutes(1), From: route.AnchorStart}}, Repeat: 1, RepeatAfter: minutes(1)}, "steps[1].from: a route that repeats counts every delay from the previous step"},
		{route.Route{Steps: []route.Step{card}, Quorum: &route.Quorum{Required: 2, Eligible: principals("a")}}, "quorum.required: must be between 1 and 1"},
		{route.Route{Steps: []route.Step{card}, Quorum: &route.Quorum{Required: 1, Eligible: principals("a"), Veto: "majority"}}, `quorum.veto: "majority" is not allowed; allowed: eligible`},
		{route.Route{Steps: []route.Step{card}, Quorum: &route.Quorum{Required: 1, Eligible: []route.Approver{{Group: "sre", Members: []string{"a", "a"}}}}}, "quorum.eligible[0]: group sre lists a twice"},
	}
	for _, tt := range tests {
		err := tt.r.Check()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want an error containing %q", tt.r, err, tt.want)
		}
	}
	if err := oncall.Check(); err != nil {
		t.Errorf("Check(oncall) = %v", err)
	}
}

// TestRouteJSON: a route's snapshot is stable — marshalling what was
// read back gives the same bytes — and reads back equal.
func TestRouteJSON(t *testing.T) {
	r := oncall
	r.Quorum = &route.Quorum{Required: 1, Eligible: []route.Approver{{Principal: "alice"}, {Group: "sre", Members: []string{"bob"}, PerMember: true}}, Veto: route.VetoAnyone}
	r.Repeat, r.RepeatAfter = 1, minutes(15)
	r.Steps[1].From = route.AnchorPrevious
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"oncall","steps":[{"responders":["card"]},{"responders":["slack:#ops"],"after":"2m0s","from":"previous"},{"responders":["email"],"people":["lead@example.com"],"after":"10m0s"}],"repeat":1,"repeat_after":"15m0s","quorum":{"required":1,"eligible":[{"principal":"alice"},{"group":"sre","members":["bob"],"per_member":true}],"veto":"anyone"}}`
	if string(b) != want {
		t.Errorf("json.Marshal =\n%s\nwant\n%s", b, want)
	}
	var back route.Route
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"steps":[{"after":"2 minutes"}]}`), &back); err == nil || !strings.Contains(err.Error(), `"2 minutes" is not a duration`) {
		t.Errorf("a bad duration: %v", err)
	}
}

// TestActionDigest: without a policy it is approval.Digest; with
// one, the documented bytes; the order of the eligible lists never
// matters; changing who may approve changes it.
func TestActionDigest(t *testing.T) {
	action, details := "Delete the S3 bucket logs-2023", "aws s3 rb s3://logs-2023 --force\n\"quoted\"\x01"
	if got, want := route.ActionDigest(action, details, nil), approval.Digest(action, details); got != want {
		t.Errorf("ActionDigest without a policy = %s, want approval.Digest's %s", got, want)
	}
	q := &route.Quorum{Required: 2, Eligible: []route.Approver{
		{Group: "sre", Members: []string{"bob@example.com", "alice@example.com"}},
		{Principal: "carol@example.com"},
	}}
	// Python's json.dumps(..., ensure_ascii=False, separators=(",", ":")) of ["Delete the S3 bucket logs-2023","aws s3 rb s3://logs-2023 --force",{"required":2,"veto":"eligible","exclude_owner":false,"eligible":[{"principal":"carol@example.com"},{"group":"sre","per_member":false,"members":["alice@example.com","bob@example.com"]}]}]
	const vector = "sha256:21e1cf63f0aabdd37382d7dfab6793ee0c772fb42313f688c03cc55a1a06dbce"
	got := route.ActionDigest(action, "aws s3 rb s3://logs-2023 --force", q)
	if got != vector {
		t.Errorf("ActionDigest with a policy = %s, want %s", got, vector)
	}
	reordered := &route.Quorum{Required: 2, Veto: route.VetoEligible, Eligible: []route.Approver{
		{Principal: "carol@example.com"},
		{Group: "sre", Members: []string{"alice@example.com", "bob@example.com"}},
	}}
	if route.ActionDigest(action, details, q) != route.ActionDigest(action, details, reordered) {
		t.Error("reordering the eligible approvers changed the digest")
	}
	base := route.ActionDigest(action, details, q)
	for name, change := range map[string]func(q *route.Quorum){
		"required":      func(q *route.Quorum) { q.Required = 1 },
		"veto":          func(q *route.Quorum) { q.Veto = route.VetoAnyone },
		"exclude_owner": func(q *route.Quorum) { q.ExcludeOwner = true },
		"a member":      func(q *route.Quorum) { q.Eligible[0].Members = append(q.Eligible[0].Members, "dave@example.com") },
		"per_member":    func(q *route.Quorum) { q.Eligible[0].PerMember = true },
		"a principal":   func(q *route.Quorum) { q.Eligible[1].Principal = "dave@example.com" },
	} {
		c := *q
		c.Eligible = []route.Approver{q.Eligible[0], q.Eligible[1]}
		c.Eligible[0].Members = append([]string(nil), q.Eligible[0].Members...)
		change(&c)
		if route.ActionDigest(action, details, &c) == base {
			t.Errorf("changing %s left the digest as it was", name)
		}
	}
	if route.ActionDigest(action, details, q) != base {
		t.Error("ActionDigest changed its policy")
	}
}
