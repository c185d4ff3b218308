package main

import (
	"strings"
	"testing"
)

// TestValidateRoutes: askuser validate --routes FILE says what a routes
// file means, and refuses a wrong one with its line and field (exit 2).
func TestValidateRoutes(t *testing.T) {
	code, out, errs := cli(t, "", "validate", "--routes", "../../route/routefile/testdata/oncall.yaml")
	want := "route oncall: ask on the card; after 2m, also the Slack channel #ops; after 10m more, also lead@example.com by email; repeats 0 times\nrule 1 (line 13): every request -> route oncall\n"
	if code != exitOK || out != want || errs != "" {
		t.Errorf("validate --routes oncall.yaml = %d\n%s\n%s\nwant 0 and\n%s", code, out, errs, want)
	}
	code, out, _ = cli(t, "", "validate", "--routes", "../../route/routefile/testdata/two-person.yaml")
	if code != exitOK || !strings.Contains(out, "route prod-delete: ") || !strings.Contains(out, "approvals need 2 of the group sre (each member counts") {
		t.Errorf("validate --routes two-person.yaml = %d\n%s", code, out)
	}

	bad := writeFile(t, "routes.yaml", "routes:\n  oncall:\n    steps:\n      - responders: [card]\n      - after: 2 minutes\n        responders: [slack:#ops]\n")
	code, out, errs = cli(t, "", "validate", "--routes", bad)
	if code != exitUsage || out != "" || !strings.Contains(errs, `routes.yaml:5:16: routes.oncall.steps[1].after: "2 minutes" is not a duration; write it as 90s, 2m or 1h30m`) {
		t.Errorf("validate --routes (a bad duration) = %d, %q, %q", code, out, errs)
	}

	code, _, errs = cli(t, "", "validate", "--routes", bad, "call.json")
	if code != exitUsage || !strings.Contains(errs, "--routes checks a routes file, not a call") {
		t.Errorf("validate --routes with a call FILE = %d, %q", code, errs)
	}
	code, _, errs = cli(t, "", "validate", "--routes", bad, "--dialect", "pi")
	if code != exitUsage || !strings.Contains(errs, "--dialect shape a call; --routes takes no other flag") {
		t.Errorf("validate --routes --dialect = %d, %q", code, errs)
	}
	code, _, errs = cli(t, "", "validate", "--routes", t.TempDir()+"/missing.yaml")
	if code != exitFailure || !strings.Contains(errs, "the routes file") {
		t.Errorf("validate --routes (no such file) = %d, %q", code, errs)
	}
	// A name with a bidi control is printed inert.
	odd := writeFile(t, "odd.yaml", "routes:\n  a:\n    steps:\n      - people: [\"x\u202ey\"]\n")
	code, out, _ = cli(t, "", "validate", "--routes", odd)
	if code != exitOK || strings.Contains(out, "\u202e") {
		t.Errorf("validate --routes printed a bidi control: %d %q", code, out)
	}
}

// TestRoutesFlag: approve --routes FILE and serve --routes FILE read the
// file at start with validate --routes's errors, and approve's asks take
// its routes: a quorum of the script's principal decides by its vote.
func TestRoutesFlag(t *testing.T) {
	bad := writeFile(t, "routes.yaml", "routes:\n  oncall:\n    steps:\n      - responders: [card]\n      - after: 2 minutes\n        responders: [slack:#ops]\n")
	const wantErr = `routes.yaml:5:16: routes.oncall.steps[1].after: "2 minutes" is not a duration; write it as 90s, 2m or 1h30m`
	for _, args := range [][]string{
		{"approve", "--responder", "auto", "--routes", bad},
		{"serve", "--listen", "127.0.0.1:0", "--state", t.TempDir(), "--routes", bad},
	} {
		code, out, errs := cli(t, approvalCall, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, wantErr) {
			t.Errorf("%s --routes (a bad duration) = %d, %q, %q; want 2 and %q", args[0], code, out, errs, wantErr)
		}
	}
	code, _, errs := cli(t, approvalCall, "approve", "--responder", "auto", "--routes", t.TempDir()+"/missing.yaml")
	if code != exitFailure || !strings.Contains(errs, "askuser approve: ") || !strings.Contains(errs, "the routes file") {
		t.Errorf("approve --routes (no such file) = %d, %q", code, errs)
	}

	routes := writeFile(t, "quorum.yaml", "routes:\n  one:\n    steps: [{responders: [card]}]\n    quorum: {required: 1, eligible: [script]}\nrules:\n  - tool: request_approval\n    route: one\n")
	code, out, errs := cli(t, approvalCall, "approve", "--responder", "script="+writeFile(t, "s.json", `{"approval":"approve"}`), "--routes", routes)
	if code != exitOK || !strings.Contains(out, `"status":"approved"`) || !strings.Contains(out, `"votes":[{"principal":"script","decision":"approve"`) || !strings.Contains(out, `"quorum":{"required":1,"approvals":1}`) {
		t.Errorf("approve --routes (a quorum) = %d\n%s\n%s", code, out, errs)
	}
}
