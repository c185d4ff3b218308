package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

const approvalCall = `{"action":"Delete the S3 bucket logs-2023","reason":"Its logs were archived to Glacier","risk":"irreversible","details":"aws s3 rb s3://logs-2023 --force","timeout_seconds":60}`

var approvalDigest = approval.Digest("Delete the S3 bucket logs-2023", "aws s3 rb s3://logs-2023 --force")

// approvalResult is the part of a result the tests look at.
type approvalResult struct {
	Status         string  `json:"status"`
	DecidedBy      *string `json:"decided_by"`
	Note           *string `json:"note"`
	Ended          *string `json:"ended"`
	ActionDigest   string  `json:"action_digest"`
	Remember       string  `json:"remember"`
	RememberedFrom string  `json:"remembered_from"`
	Message        string  `json:"message"`
}

func parseApproval(t *testing.T, out string) approvalResult {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("stdout is not one line: %q", out)
	}
	var r approvalResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if r.ActionDigest != approvalDigest {
		t.Errorf("action_digest %s, want %s", r.ActionDigest, approvalDigest)
	}
	return r
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// TestApproveScript: a script decides, and approve prints the result and
// exits 0 whatever the decision.
func TestApproveScript(t *testing.T) {
	tests := []struct {
		script, status, decidedBy, note, ended, remember string
	}{
		{`{"approval":"approve","note":"after 18:00"}`, "approved", "user", "after 18:00", "null", ""},
		{`{"approval":"deny","note":"not before the audit"}`, "denied", "user", "not before the audit", "null", ""},
		{`{"end":"decline"}`, "denied", "user", "null", "null", ""},
		{`{"approval":"approve","end":"cancel"}`, "unresolved", "null", "null", "dismissed", ""},
		{`{"approval":"approve","end":"supersede"}`, "unresolved", "null", "null", "superseded", ""},
		{`{"end":"unreachable"}`, "unresolved", "null", "null", "unattended", ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			code, out, errs := cli(t, approvalCall, "approve", "--responder", "script="+writeFile(t, "s.json", tt.script))
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			r := parseApproval(t, out)
			if r.Status != tt.status || str(r.DecidedBy) != tt.decidedBy || str(r.Note) != tt.note || str(r.Ended) != tt.ended || r.Remember != tt.remember {
				t.Errorf("result %s", out)
			}
		})
	}
}

// TestApproveScriptCannotRemember: a script cannot decide for the rest of
// the session — that is a person's choice, and the consent would decide
// later requests without asking — so approve_session and deny_session are
// refused, and nothing is remembered; a script's record names it as its
// principal.
func TestApproveScriptCannotRemember(t *testing.T) {
	dir := t.TempDir()
	consents := filepath.Join(dir, "consents.jsonl")
	journalFile := filepath.Join(dir, "j.jsonl")
	for _, decision := range []string{"approve_session", "deny_session"} {
		code, out, errs := cli(t, approvalCall, "approve", "--responder", "script="+writeFile(t, "s.json", `{"approval":"`+decision+`"}`), "--consents", consents, "--journal", journalFile)
		if code != exitUsage || out != "" || !strings.Contains(errs, "a script cannot decide for the rest of the session") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want it refused", decision, code, out, errs)
		}
	}
	if code, _, errs := cli(t, approvalCall, "approve", "--responder", "script="+writeFile(t, "s.json", `{"approval":"approve"}`), "--consents", consents, "--journal", journalFile); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	code, out, _ := cli(t, approvalCall, "approve", "--responder", "auto", "--consents", consents)
	if r := parseApproval(t, out); code != 0 || r.Status != "unresolved" {
		t.Errorf("after the scripts, a request is decided without asking: %s", out)
	}
	for rec, err := range journal.ReadFile(journalFile) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Principal != "script" {
			t.Errorf("a script's record has principal %q, want script", rec.Principal)
		}
	}
}

// TestApproveAuto: nobody can be asked, so the request stays unresolved and
// the result tells the model it must not act; the exit status is still 0.
func TestApproveAuto(t *testing.T) {
	code, out, errs := cli(t, "", "approve", "--responder", "auto", "--request", writeFile(t, "c.json", approvalCall))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	r := parseApproval(t, out)
	if r.Status != "unresolved" || r.DecidedBy != nil || str(r.Ended) != "unattended" || !strings.Contains(r.Message, "You have no permission") {
		t.Errorf("result %s", out)
	}
}

// TestApproveFault: a script written for another call cannot approve: its
// answer is refused and its submit fails, a responder fault; the result is
// unresolved and the fault goes to standard error.
func TestApproveFault(t *testing.T) {
	script := writeFile(t, "s.json", `{"answers":[{"id":"env","selected":["staging"]}]}`)
	code, out, errs := cli(t, approvalCall, "approve", "--responder", "script="+script)
	if code != 0 || !strings.Contains(errs, "askuser approve: ") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if r := parseApproval(t, out); r.Status != "unresolved" || str(r.Ended) != "fault" {
		t.Errorf("result %s", out)
	}
}

// TestApproveInvalid: an invalid call prints the model-facing message on
// standard error, nothing on standard output, and exits 2; bad flags exit
// 2 too.
func TestApproveInvalid(t *testing.T) {
	tests := []struct {
		stdin string
		args  []string
		want  string
	}{
		{`{"action":"Delete the bucket","reason":"old","risk":"catastrophic"}`, nil,
			`invalid request_approval arguments: risk: "catastrophic" is not a risk; allowed: "low", "medium", "high", "irreversible"` + "\n"},
		{`{"action":"Delete the bucket","risk":"high"}`, nil,
			"invalid request_approval arguments: reason must not be empty; say why the action is needed\n"},
		{`{"questions":[]}`, nil,
			"invalid request_approval arguments: questions: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent\n"},
		{`{"action":"a","reason":"r","risk":"low","timeout_seconds":120}`, []string{"--max-timeout-seconds", "60"},
			"invalid request_approval arguments: timeout_seconds must be between 1 and 60\n"},
		{"", []string{"--responder", "carrier-pigeon"}, "askuser approve: --responder \"carrier-pigeon\" is not a responder; allowed: tui, stdio, auto, web, slack, email, script=FILE\n"},
		{"", []string{"extra"}, "askuser approve: unexpected argument \"extra\"; the call comes from --request FILE or standard input\n"},
		{"", []string{"--max-timeout-seconds", "-1"}, "askuser approve: --max-timeout-seconds -1 is negative; give a number of seconds, or 0 for the default\n"},
		{"", []string{"--responder", "script=" + filepath.Join("testdata", "no-such-dir", "s.json")}, ""},
	}
	for _, tt := range tests {
		args := append([]string{"approve", "--responder", "auto"}, tt.args...)
		code, out, errs := cli(t, tt.stdin, args...)
		if tt.want == "" { // a file that cannot be read: a failure, not a usage error
			if code != exitFailure || out != "" || !strings.HasPrefix(errs, "askuser approve: ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1", tt.args, code, out, errs)
			}
			continue
		}
		if code != exitUsage || out != "" || errs != tt.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errs, tt.want)
		}
	}
	code, out, errs := cli(t, "", "approve", "--responder", "script="+writeFile(t, "s.json", `{"approval":"yes"}`))
	if code != exitUsage || out != "" || !strings.Contains(errs, `approval is "yes"; allowed: approve, approve_session, deny, deny_session`) {
		t.Errorf("a script with a bad approval: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = cli(t, "", "approve", "--help")
	if code != 0 || !strings.Contains(errs, "usage: askuser approve") || !strings.Contains(errs, "-consents") {
		t.Errorf("approve --help: exit %d, stderr %q", code, errs)
	}
}

// TestApproveJournal: the journal keeps one record of the request, with
// the approval, who decided, and the result printed; the same tool call is
// replayed from it by the next command, without asking.
func TestApproveJournal(t *testing.T) {
	journalFile := filepath.Join(t.TempDir(), "j.jsonl")
	approveScript := writeFile(t, "s.json", `{"approval":"deny","note":"not before the audit"}`)
	code, out, errs := cli(t, approvalCall, "approve", "--responder", "script="+approveScript, "--session", "s7", "--tool-call", "call_1", "--journal", journalFile)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var recs []*journal.Record
	for rec, err := range journal.ReadFile(journalFile) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	rec := recs[0]
	if rec.Contract != "request_approval" || rec.Session != "s7" || rec.ToolCallID != "call_1" || rec.Reason != askuser.ReasonSubmitted ||
		rec.AnsweredBy != askuser.ByUser || rec.Responder != "script" || rec.Approval == nil || rec.Approval.Digest != approvalDigest ||
		rec.Approval.Risk != approval.RiskIrreversible || string(rec.Result)+"\n" != out {
		t.Errorf("record %+v", rec)
	}

	// Replayed by tool-call id: an auto responder would leave it unresolved.
	code, again, errs := cli(t, approvalCall, "approve", "--responder", "auto", "--session", "s7", "--tool-call", "call_1", "--journal", journalFile)
	if code != 0 || errs != "" || again != out {
		t.Errorf("replay: exit %d, stderr %q, stdout %q; want %q", code, errs, again, out)
	}
}

// TestApproveConsents: with --consents, a decision for the session holds
// for the next approve of the same session and action, in another process
// run, reported as remembered; another session is asked.
func TestApproveConsents(t *testing.T) {
	dir := t.TempDir()
	consents := filepath.Join(dir, "consents.jsonl")
	// The person's decision for the session, as the command would keep it
	// (a script cannot make one): in the consents file, under the
	// command's key ring.
	ring, err := decisionKeys("")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := journal.OpenConsentsWith(consents, &journal.ConsentsOptions{Keys: ring})
	if err != nil {
		t.Fatal(err)
	}
	firstAsk := "ask-of-the-person"
	if err := cs.Remember(context.Background(), store.Consent{Session: "s1", Digest: approvalDigest, Approved: true, Action: "Delete the S3 bucket logs-2023", AskID: firstAsk}); err != nil {
		t.Fatal(err)
	}
	cs.Close()

	code, out, errs := cli(t, approvalCall, "approve", "--responder", "auto", "--session", "s1", "--consents", consents)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if r := parseApproval(t, out); r.Status != "approved" || str(r.DecidedBy) != "remembered" || r.RememberedFrom != firstAsk {
		t.Errorf("remembered: %s; want remembered from %s", out, firstAsk)
	}

	code, out, _ = cli(t, approvalCall, "approve", "--responder", "auto", "--session", "s2", "--consents", consents)
	if r := parseApproval(t, out); code != 0 || r.Status != "unresolved" {
		t.Errorf("another session: %s", out)
	}

	if code, _, errs := cli(t, approvalCall, "approve", "--responder", "auto", "--consents", dir); code != exitFailure || !strings.Contains(errs, "--consents") {
		t.Errorf("--consents naming a directory: exit %d, stderr %q", code, errs)
	}
}

// TestAskRefusesApprovals: ask does not take a request_approval call;
// approve does.
func TestAskRefusesApprovals(t *testing.T) {
	code, out, errs := cli(t, approvalCall, "ask", "--dialect", "request_approval", "--responder", "auto")
	if code != exitUsage || out != "" || !strings.Contains(errs, "a request_approval call is asked with 'askuser approve', not ask") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestValidateApproval: validate checks a request_approval call and prints
// it normalized, in its own form; an invalid one gets the contract's
// message.
func TestValidateApproval(t *testing.T) {
	code, out, errs := cli(t, `{"risk":"low","reason":"To find the oldest","action":"List the backups"}`, "validate", "--dialect", "request_approval", "--max-timeout-seconds", "90")
	if want := `{"action":"List the backups","reason":"To find the oldest","risk":"low","timeout_seconds":90}` + "\n"; code != 0 || errs != "" || out != want {
		t.Errorf("exit %d, stderr %q, stdout %q; want %q", code, errs, out, want)
	}
	code, out, errs = cli(t, out, "validate", "--dialect", "request_approval", "--max-timeout-seconds", "90")
	if code != 0 || errs != "" || out != `{"action":"List the backups","reason":"To find the oldest","risk":"low","timeout_seconds":90}`+"\n" {
		t.Errorf("validate of validate's output: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	code, out, errs = cli(t, `{"action":"","reason":"r","risk":"low"}`, "validate", "--dialect", "request_approval")
	if code != exitUsage || out != "" || errs != "invalid request_approval arguments: action must not be empty; say what will be done\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestApproveRequesterNeverApproves: with --routes, --requester names the
// agent's principal, whose own vote never counts. The script (principal
// "script") is the only eligible approver: without --requester its
// approve decides; as the requester, its vote is listed as the
// requester's and the deadline leaves the request unresolved.
func TestApproveRequesterNeverApproves(t *testing.T) {
	routes := writeFile(t, "routes.yaml", "routes:\n  self:\n    steps:\n      - responders: [card]\n    quorum:\n      required: 1\n      eligible: [script]\nrules:\n  - route: self\n")
	script := writeFile(t, "s.json", `{"approval":"approve"}`)
	call := strings.Replace(approvalCall, `"timeout_seconds":60`, `"timeout_seconds":5`, 1)
	synctest.Test(t, func(t *testing.T) {
		code, out, errs := cli(t, call, "approve", "--routes", routes, "--responder", "script="+script)
		if code != 0 || !strings.Contains(out, `"status":"approved"`) {
			t.Fatalf("without --requester: %d\n%s\n%s", code, out, errs)
		}
		code, out, errs = cli(t, call, "approve", "--routes", routes, "--requester", "script", "--responder", "script="+script)
		if code != 0 || !strings.Contains(out, `"status":"unresolved"`) || !strings.Contains(out, `"principal":"script"`) || !strings.Contains(out, `"counted":false`) {
			t.Fatalf("with --requester script: %d\n%s\n%s", code, out, errs)
		}
	})
	code, _, errs := cli(t, call, "approve", "--requester", "agent", "--responder", "script="+script)
	if code != exitUsage || !strings.Contains(errs, "give --routes") {
		t.Errorf("--requester without --routes: %d, %q", code, errs)
	}
	code, _, errs = cli(t, call, "approve", "--routes", routes, "--requester", "group:sre", "--responder", "script="+script)
	if code != exitUsage || !strings.Contains(errs, "is not a principal") {
		t.Errorf("--requester group:sre: %d, %q", code, errs)
	}
}
