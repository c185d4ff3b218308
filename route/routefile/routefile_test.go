package routefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/route/routefile"
	"github.com/google/go-cmp/cmp"
)

func read(t *testing.T, name string) *routefile.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := routefile.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var wantOncall = route.Route{
	Name: "oncall",
	Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops"}, After: route.Duration(2 * time.Minute)},
		{Responders: []string{"email"}, People: []string{"lead@example.com"}, After: route.Duration(10 * time.Minute)},
	},
}

// TestExamples: the files of docs/routing.md read as they say, in YAML
// and JSON alike.
func TestExamples(t *testing.T) {
	for _, name := range []string{"oncall.yaml", "oncall.json"} {
		f := read(t, name)
		if diff := cmp.Diff(wantOncall, f.Routes["oncall"]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		want := "route oncall: ask on the card; after 2m, also the Slack channel #ops; after 10m more, also lead@example.com by email; repeats 0 times\nrule 1 (line %d): every request -> route oncall\n"
		line := map[string]string{"oncall.yaml": "13", "oncall.json": "11"}[name]
		if got := f.Describe(); got != strings.Replace(want, "%d", line, 1) {
			t.Errorf("%s: Describe() =\n%s", name, got)
		}
	}
	f := read(t, "two-person.yaml")
	q := f.Routes["prod-delete"].Quorum
	wantQ := &route.Quorum{Required: 2, ExcludeOwner: true, Eligible: []route.Approver{{Group: "sre", PerMember: true, Members: []string{"alice@example.com", "bob@example.com", "carol@example.com"}}}}
	if diff := cmp.Diff(wantQ, q); diff != "" {
		t.Errorf("two-person quorum (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		req  route.Request
		want string
	}{
		{route.Request{Tool: "request_approval", Session: "prod-42", Risk: "irreversible"}, "prod-delete"},
		{route.Request{Tool: "request_approval", Session: "prod-42", Risk: "low"}, "oncall"},
		{route.Request{Tool: "request_approval", Session: "dev-1", Risk: "high"}, "oncall"},
		{route.Request{Tool: "ask_user", Session: "prod-42"}, "oncall"},
	} {
		r, ok := f.Select(tt.req)
		if !ok || r.Name != tt.want {
			t.Errorf("Select(%+v) = %q, %v; want %q", tt.req, r.Name, ok, tt.want)
		}
	}
	got := f.Describe()
	for _, want := range []string{
		"group sre: alice@example.com, bob@example.com, carol@example.com\n",
		"route prod-delete: ask the group sre on the card and on the Slack channel #sre-approvals; after 5m, also sre-lead@example.com by email; repeats 0 times; approvals need 2 of the group sre (each member counts: alice@example.com, bob@example.com, carol@example.com); a deny by any of them ends it denied; neither the requester nor the session's owner ever approves\n",
		`rule 1 (line 29): tool request_approval, a session starting with "prod-", risk high or irreversible -> route prod-delete` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() lacks %q; it is\n%s", want, got)
		}
	}
}

func TestSelectWithoutACatchAll(t *testing.T) {
	f, err := routefile.Parse("r.yaml", []byte("routes:\n  a:\n    steps: [{responders: [card]}]\nrules:\n  - tool: [request_approval]\n    route: a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Select(route.Request{Tool: "ask_user"}); ok {
		t.Error("Select chose a route for a request no rule matches")
	}
	if !strings.Contains(f.Describe(), "any other request: no route") {
		t.Errorf("Describe() does not say what happens to other requests:\n%s", f.Describe())
	}
}

// TestErrors: every error names the line, the column, the field and what
// is allowed.
func TestErrors(t *testing.T) {
	const ok = "routes:\n  a:\n    steps:\n      - responders: [card]\n"
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", "r.yaml: the file is empty; it needs at least routes:"},
		{"not yaml", "routes: [", "r.yaml: not YAML or JSON: line 1: did not find expected node content"},
		{"two documents", ok + "---\nroutes: {}\n", "r.yaml:5:1: a routes file is one document"},
		{"not a mapping", "- a\n", "r.yaml:1:1: (root): expected a mapping of version, groups, routes, rules, got a list"},
		{"unknown field", "route:\n  a: {}\n", "r.yaml:1:1: route: unknown field; allowed: version, groups, routes, rules"},
		{"no routes", "rules: []\n", "r.yaml:1:1: routes: required: a routes file defines at least one route"},
		{"duplicate field", ok + "routes: {}\n", "r.yaml:5:1: routes: duplicate field; a field may appear only once"},
		{"bad version", "version: 2\n" + ok, "r.yaml:1:10: version: version 2 is not known; allowed: 1"},
		{"bad route name", "routes:\n  On Call:\n    steps: [{responders: [card]}]\n", `r.yaml:2:3: routes.On Call: route name "On Call": must be 1-64 lowercase letters`},
		{"no steps", "routes:\n  a: {repeat: 1}\n", "r.yaml:2:6: routes.a.steps: required: a route needs at least one step"},
		{"unknown step field", "routes:\n  a:\n    steps:\n      - responder: [card]\n", "r.yaml:4:9: routes.a.steps[0].responder: unknown field; allowed: responders, people, after, from"},
		{"bad channel", "routes:\n  a:\n    steps:\n      - responders: [card, sms]\n", `r.yaml:4:28: routes.a.steps[0].responders[1]: "sms" is not a channel; allowed: card, tui, stdio, mcp, slack, email, webhook`},
		{"duration without unit", ok + "      - after: 120\n        responders: [email]\n", "r.yaml:5:16: routes.a.steps[1].after: 120 has no unit; write a duration such as 120s or 2m"},
		{"bad duration", ok + "      - after: 2 minutes\n        responders: [email]\n", `r.yaml:5:16: routes.a.steps[1].after: "2 minutes" is not a duration; write it as 90s, 2m or 1h30m`},
		{"same step twice", ok + "      - responders: [email]\n", "r.yaml:5:9: routes.a.steps[1].after: a step that begins with the previous one is the same step"},
		{"first step delayed", "routes:\n  a:\n    steps:\n      - after: 1m\n        responders: [card]\n", "r.yaml:4:9: routes.a.steps[0]: the first step begins with the ask; it takes no after or from"},
		{"bad anchor", ok + "      - after: 1m\n        from: end\n        responders: [email]\n", `r.yaml:6:15: routes.a.steps[1].from: "end" is not an anchor; allowed: previous (the default), start, nudge`},
		{"undefined group", "routes:\n  a:\n    steps:\n      - people: [group:sre]\n", "r.yaml:4:18: routes.a.steps[0].people[0]: group sre is not defined; define it under groups: none is"},
		{"repeat without delay", ok + "    repeat: 2\n", "r.yaml:3:5: routes.a.repeat_after: a route that repeats needs the delay"},
		{"repeat not a number", ok + "    repeat: twice\n", `r.yaml:5:13: routes.a.repeat: expected a whole number, got the string "twice"`},
		{"quorum too big", ok + "    quorum: {required: 3, eligible: [alice, bob]}\n", "r.yaml:5:24: routes.a.quorum.required: must be between 1 and 2"},
		{"quorum veto", ok + "    quorum: {required: 1, eligible: [alice], veto: none}\n", `r.yaml:5:52: routes.a.quorum.veto: "none" is not allowed; allowed: eligible (the default`},
		{"quorum no eligible", ok + "    quorum: {required: 1}\n", "r.yaml:5:13: routes.a.quorum.eligible: required: the principals and groups who may approve"},
		{"eligible twice", ok + "    quorum: {required: 1, eligible: [alice, alice]}\n", "routes.a.quorum.eligible[1]: alice is listed twice"},
		{"eligible group undefined", ok + "    quorum: {required: 1, eligible: [{group: sre}]}\n", "r.yaml:5:46: routes.a.quorum.eligible[0]: group sre is not defined"},
		{"exclude_owner not bool", ok + "    quorum: {required: 1, eligible: [a], exclude_owner: yes}\n", `routes.a.quorum.exclude_owner: expected true or false, got the string "yes"`},
		{"group member a group", "groups:\n  sre: [group:ops]\n" + ok, `r.yaml:2:9: groups.sre[0]: "group:ops": a group's members are principals, not groups`},
		{"group empty", "groups:\n  sre: []\n" + ok, "r.yaml:2:8: groups.sre: a group needs at least one member"},
		{"rule to nowhere", ok + "rules:\n  - route: b\n", `r.yaml:6:12: rules[0].route: route "b" is not defined; defined: a`},
		{"rule bad risk", ok + "rules:\n  - {risk: High, route: a}\n", `r.yaml:6:12: rules[0].risk: "High" is not a risk; allowed: low, medium, high, irreversible`},
		{"unreachable rule", ok + "rules:\n  - route: a\n  - {tool: ask_user, route: a}\n", "r.yaml:7:5: rules[1]: this rule can never match: rules[0] (line 6) matches every request"},
		{"rule without route", ok + "rules:\n  - tool: ask_user\n", "r.yaml:6:5: rules[0].route: required: the name of the route this rule chooses"},
		{"alias", "groups:\n  sre: &s [a]\n  ops: *s\n" + ok, "r.yaml:3:8: groups.ops: aliases (*s) are not allowed"},
		{"tag", "routes: !custom\n  a: {}\n", "r.yaml:1:9: routes: tags (!custom) are not allowed"},
		{"json duplicate", `{"routes": {"a": {"steps": [{"responders": ["card"]}]}}, "routes": {}}`, "r.yaml:1:58: routes: duplicate field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := routefile.Parse("r.yaml", []byte(tt.file))
			var e *routefile.Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse = %v, want a *routefile.Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error\n%s\nwant it to contain\n%s", err, tt.want)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	_, err := routefile.Parse("big.yaml", make([]byte, routefile.MaxSize+1))
	if err == nil || !strings.Contains(err.Error(), "at most 1048576 are read") {
		t.Errorf("Parse of a file over MaxSize = %v", err)
	}
}

// TestSelectExpandsGroups: the route Select returns is a snapshot that
// names people, not groups, and changing it leaves the file as it was.
func TestSelectExpandsGroups(t *testing.T) {
	f := read(t, "two-person.yaml")
	r, ok := f.Select(route.Request{Tool: "request_approval", Session: "prod-1", Risk: "high"})
	if !ok {
		t.Fatal("no route")
	}
	want := []string{"alice@example.com", "bob@example.com", "carol@example.com"}
	if diff := cmp.Diff(want, r.Steps[0].People); diff != "" {
		t.Errorf("step 0 people (-want +got):\n%s", diff)
	}
	r.Steps[0].People[0] = "mallory@example.com"
	r.Quorum.Eligible[0].Members[0] = "mallory@example.com"
	again, _ := f.Select(route.Request{Tool: "request_approval", Session: "prod-1", Risk: "high"})
	if again.Steps[0].People[0] != "alice@example.com" || again.Quorum.Eligible[0].Members[0] != "alice@example.com" {
		t.Error("changing a selected route changed the file's")
	}
	if got := f.Routes["prod-delete"].Steps[0].People; !cmp.Equal(got, []string{"group:sre"}) {
		t.Errorf("the file's route names %v; want the group itself", got)
	}
}
