package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/web"
)

// testCode is the approval code of these tests: letters that no hex ask id,
// token or timestamp holds, so that looking for it in what the card wrote
// cannot match by chance.
const testCode = "ZQ7X-KV9W"

// approvalForm builds an approval form.
func approvalForm(t testing.TB, risk approval.Risk, action, details string) *askuser.Form {
	t.Helper()
	f, err := approvaltool.Form(approval.Request{Action: action, Reason: "It is past its retention", Risk: risk, Details: details}, 60)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// askForm asks a Go-built form in the background.
func (cs *cardServer) askForm(session string, f *askuser.Form) <-chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := cs.o.Handle(context.Background(), askuser.Request{Session: session, Form: f})
		ch <- result{out, err}
	}()
	return ch
}

// verdictOf waits for an approval's outcome and returns its verdict.
func verdictOf(t *testing.T, ch <-chan result) (approvaltool.Verdict, *askuser.Outcome) {
	t.Helper()
	out := wait(t, ch)
	v, ok := approvaltool.VerdictOf(out)
	if !ok {
		t.Fatal("the outcome is not an approval's")
	}
	return v, out
}

// decision is a submit body deciding an approval.
func decision(choice, note, code, confirm string) string {
	b := map[string]any{"answers": map[string]any{"approval": map[string]any{"selected": []string{choice}, "note": note}}}
	if code != "" {
		b["code"] = code
	}
	if confirm != "" {
		b["confirm"] = confirm
	}
	data, _ := json.Marshal(b)
	return string(data)
}

// syncLog is a log a test reads.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestApprovalsNeedAdmission: without Authorize or an approval code the
// card takes no approvals — the orchestrator never shows one, and it ends
// unresolved at once, with nobody asked; a code too short to resist
// guessing counts as none.
func TestApprovalsNeedAdmission(t *testing.T) {
	for name, opts := range map[string]*web.Options{
		"nothing set":    {},
		"too short code": {ApprovalCode: "12-34"},
	} {
		t.Run(name, func(t *testing.T) {
			as := newAPIServer(t, opts)
			if as.r.CanTakeApprovals() {
				t.Fatal("CanTakeApprovals reports true")
			}
			v, out := verdictOf(t, as.askForm("s", approvalForm(t, approval.RiskLow, "Read the logs", "")))
			if v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
				t.Errorf("verdict %+v, want unresolved, unattended", v)
			}
			if r := as.do("GET", "/api/asks/"+out.AskID, "s", "", nil); r.code != 404 {
				t.Errorf("the approval was on the card: %d %s", r.code, r.body)
			}
		})
	}
	for name, opts := range map[string]*web.Options{
		"a code":    {ApprovalCode: testCode},
		"Authorize": {Authorize: func(*http.Request, string) (string, error) { return "ann", nil }},
	} {
		if !web.New(opts).CanTakeApprovals() {
			t.Errorf("with %s, CanTakeApprovals reports false", name)
		}
	}
	r := web.New(&web.Options{ApprovalCode: testCode, Logger: quiet})
	r.Close()
	if r.CanTakeApprovals() {
		t.Error("a closed card says it takes approvals")
	}
}

// TestApprovalRefusals: every way a decision can be refused, in the order
// the card checks them; nothing refused decides anything.
func TestApprovalRefusals(t *testing.T) {
	log := &syncLog{}
	as := newAPIServer(t, &web.Options{ApprovalCode: testCode, Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})

	low := as.askForm("s", approvalForm(t, approval.RiskLow, "Read the logs", ""))
	a := as.waitPending("s", 1)[0]
	irr := as.askForm("s", approvalForm(t, approval.RiskIrreversible, "Delete the bucket", "gsutil rm -r gs://b"))
	b := as.waitPending("s", 2)[1]
	question := as.ask("s", otherAsk, nil)
	c := as.waitPending("s", 3)[2]
	A, B, C := "/api/asks/"+a.AskID, "/api/asks/"+b.AskID, "/api/asks/"+c.AskID

	tests := []struct {
		name, method, path, body string
		hdr                      map[string]string
		code                     int
		errContains              string
	}{
		{"a PUT", "PUT", A + "/answers/approval", `{"selected":["approve"]}`, nil, 400, "decided in one request"},
		{"not JSON", "POST", A + "/submit", `{"answers":`, nil, 400, "not a decision"},
		{"no decision", "POST", A + "/submit", `{"code":"` + testCode + `"}`, nil, 400, "decides nothing"},
		{"an unknown field", "POST", A + "/submit", `{"answers":{},"token":"x"}`, nil, 400, `no field "token"`},
		{"another question", "POST", A + "/submit", `{"answers":{"env":{"selected":["staging"]}},"code":"` + testCode + `"}`, nil, 400, `one question, "approval"`},
		{"a code that is not a string", "POST", A + "/submit", `{"answers":{"approval":{"selected":["approve"]}},"code":27182818}`, nil, 400, "code has the wrong type"},
		{"answered_by", "POST", A + "/submit", `{"answers":{"approval":{"selected":["approve"],"answered_by":"user"}},"code":"` + testCode + `"}`, nil, 400, "answered_by"},
		{"no code", "POST", A + "/submit", decision("approve", "", "", ""), nil, 403, `needs the approval code, in "code"`},
		{"a blank code", "POST", A + "/submit", decision("approve", "", "  ", ""), nil, 403, `needs the approval code`},
		{"a wrong code", "POST", A + "/submit", decision("approve", "", "1111-1111", ""), nil, 403, "the approval code is wrong; 4 attempts left"},
		{"not an option", "POST", A + "/submit", decision("maybe", "", testCode, ""), nil, 400, `"maybe" is not one of the options`},
		{"two options", "POST", A + "/submit", `{"answers":{"approval":{"selected":["approve","deny"]}},"code":"` + testCode + `"}`, nil, 400, "takes one option"},
		{"nothing picked", "POST", A + "/submit", `{"answers":{"approval":{"note":"hm"}},"code":"` + testCode + `"}`, nil, 400, "the answer is empty"},
		{"free text", "POST", A + "/submit", `{"answers":{"approval":{"other_text":"yes please"}},"code":"` + testCode + `"}`, nil, 400, "only its options"},
		{"a secret", "POST", A + "/submit", `{"answers":{"approval":{"selected":["approve"],"secret":"hunter2"}},"code":"` + testCode + `"}`, nil, 400, "only a secret question"},
		{"a credential in the note", "POST", A + "/submit", decision("approve", "use ghp_abcdefghijklmnopqrstuvwxyz0123456789", testCode, ""), nil, 400, "will not be passed on"},
		{"irreversible, no confirmation", "POST", B + "/submit", decision("approve", "", testCode, ""), nil, 400, `"confirm": "approve"`},
		{"irreversible, the wrong word", "POST", B + "/submit", decision("approve_session", "", testCode, "yes"), nil, 400, `"confirm": "approve"`},
		{"a decline without the code", "POST", A + "/decline", ``, nil, 403, "needs the approval code"},
		{"a decline with a wrong code", "POST", A + "/decline", `{"code":"0000-0000"}`, nil, 403, "3 attempts left"},
		{"a decline with a stray field", "POST", A + "/decline", `{"reason":"x"}`, nil, 400, `no field "reason"`},
		{"a dismissal without the code", "POST", A + "/dismiss", `{"on_question":"approval"}`, nil, 403, "needs the approval code"},
		{"a dismissal on no such question", "POST", A + "/dismiss", `{"on_question":"env","code":"` + testCode + `"}`, nil, 404, "no such question"},
		{"a code on a question's submit", "POST", C + "/submit", `{"answers":{"size":{"selected":["small"]}},"code":"` + testCode + `"}`, nil, 400, `no field "code"`},
		{"no CSRF token", "POST", A + "/submit", decision("approve", "", testCode, ""), map[string]string{"X-CSRF-Token": ""}, 403, "X-CSRF-Token"},
		{"cross-site", "POST", A + "/submit", decision("approve", "", testCode, ""), map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "cross-origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := as.do(tt.method, tt.path, "s", tt.body, tt.hdr)
			if r.code != tt.code || !strings.Contains(r.err.Error, tt.errContains) {
				t.Errorf("%s %s: %d %s; want %d saying %q", tt.method, tt.path, r.code, r.body, tt.code, tt.errContains)
			}
		})
	}
	if got := len(as.o.Pending("s")); got != 3 {
		t.Fatalf("%d asks pending after the refusals, want all 3", got)
	}
	for _, p := range as.o.Pending("s") {
		if len(p.Answered) != 0 {
			t.Errorf("a refused decision was kept on %s: %v", p.AskID, p.Answered)
		}
	}
	// The right code, typed with spaces for the dash, still decides: two
	// wrong codes do not lock the card.
	if r := as.do("POST", B+"/submit", "s", decision("approve", "backed up", "zq7x kv9w", " Approve "), nil); r.code != 200 || !strings.Contains(r.body, `"state":"approved"`) {
		t.Fatalf("the confirmed approval: %d %s", r.code, r.body)
	}
	if r := as.do("POST", A+"/decline", "s", `{"code":"zq7xkv9w"}`, nil); r.code != 200 || !strings.Contains(r.body, `"state":"denied"`) {
		t.Fatalf("the decline: %d %s", r.code, r.body)
	}
	if v, out := verdictOf(t, irr); v.Status != approval.Approved || v.Note != "backed up" || out.Principal != "web approval code" {
		t.Errorf("the irreversible approval: %+v by %q; want approved with the note, by the code", v, out.Principal)
	}
	if v, _ := verdictOf(t, low); v.Status != approval.Denied || v.DecidedBy != askuser.ByUser {
		t.Errorf("the declined approval: %+v, want denied by the user", v)
	}
	as.o.Supersede("s")
	wait(t, question)
	for where, s := range map[string]string{"a response": as.rec.String(), "the log": log.String()} {
		if strings.Contains(strings.ToLower(s), "zq7x") || strings.Contains(s, "1111-1111") || strings.Contains(s, "hunter2") || strings.Contains(s, "ghp_") {
			t.Errorf("%s carries a code, or what a refused body held:\n%s", where, s)
		}
	}
	if !strings.Contains(log.String(), "wrong approval code") {
		t.Errorf("the log does not record the wrong codes:\n%s", log.String())
	}
}

// TestApprovalDecisions: each decision through the API, and what the
// orchestrator makes of it. A decision for the session is remembered: the
// same action asked again in the session is decided without the card.
func TestApprovalDecisions(t *testing.T) {
	tests := []struct {
		name, path, body string
		status           string
		remember         bool
		ended            askuser.Reason
		state            string
	}{
		{"approve once", "/submit", decision("approve", "go ahead", testCode, ""), approval.Approved, false, "", "approved"},
		{"approve for the session", "/submit", decision("approve_session", "", testCode, ""), approval.Approved, true, "", "approved"},
		{"deny once", "/submit", decision("deny", "not now", testCode, ""), approval.Denied, false, "", "denied"},
		{"deny for the session", "/submit", decision("deny_session", "", testCode, ""), approval.Denied, true, "", "denied"},
		{"decline", "/decline", `{"code":"` + testCode + `"}`, approval.Denied, false, "", "denied"},
		{"dismiss", "/dismiss", `{"code":"` + testCode + `"}`, approval.Unresolved, false, askuser.ReasonDismissed, "unresolved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newAPIServer(t, &web.Options{ApprovalCode: testCode})
			f := approvalForm(t, approval.RiskHigh, "Force-push main", "git push --force origin main")
			done := as.askForm("s", f)
			a := as.waitPending("s", 1)[0]
			r := as.do("POST", "/api/asks/"+a.AskID+tt.path, "s", tt.body, nil)
			if r.code != 200 || !strings.Contains(r.body, `"state":"`+tt.state+`"`) || !strings.Contains(r.body, `"verdict":{"status":"`+tt.status+`"`) {
				t.Fatalf("%d %s; want 200 with the state %s", r.code, r.body, tt.state)
			}
			v, out := verdictOf(t, done)
			if v.Status != tt.status || v.Remember != tt.remember || v.Ended != tt.ended {
				t.Errorf("verdict %+v; want %s, remember %v, ended %q", v, tt.status, tt.remember, tt.ended)
			}
			if out.Principal != "web approval code" {
				t.Errorf("principal %q, want the approval code's", out.Principal)
			}
			// Asked again in the session: decided as remembered, or else
			// shown on the card again.
			againDone := as.askForm("s", f)
			if !tt.remember {
				as.waitPending("s", 1)
				as.o.Supersede("s")
			}
			rv, _ := verdictOf(t, againDone)
			switch {
			case tt.remember && (rv.Status != tt.status || rv.DecidedBy != askuser.ByRemembered || rv.RememberedFrom != out.AskID):
				t.Errorf("asked again: %+v; want %s, remembered from %s", rv, tt.status, out.AskID)
			case !tt.remember && rv.Ended != askuser.ReasonSuperseded:
				t.Errorf("asked again: %+v; want it shown on the card again (and superseded there)", rv)
			}
		})
	}
}

// TestApprovalCodeLockout: after MaxApprovalCodeAttempts wrong codes the
// card takes no more approvals: the pending ones end unresolved, a later
// one is never shown, and even the right code is refused; questions go on.
func TestApprovalCodeLockout(t *testing.T) {
	as := newAPIServer(t, &web.Options{ApprovalCode: testCode})
	done := as.askForm("s", approvalForm(t, approval.RiskMedium, "Restart the login service", ""))
	a := as.waitPending("s", 1)[0]
	question := as.ask("s", otherAsk, nil)
	as.waitPending("s", 2)
	A := "/api/asks/" + a.AskID
	for i := 1; i <= web.MaxApprovalCodeAttempts; i++ {
		r := as.do("POST", A+"/submit", "s", decision("approve", "", "9999-000"+string(rune('0'+i)), ""), nil)
		want := "attempt"
		if i == web.MaxApprovalCodeAttempts {
			want = "that was the last attempt"
		}
		if r.code != 403 || !strings.Contains(r.err.Error, want) {
			t.Fatalf("wrong code %d: %d %s", i, r.code, r.body)
		}
	}
	if v, _ := verdictOf(t, done); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
		t.Errorf("the pending approval: %+v; want unresolved, nobody to ask", v)
	}
	if as.r.CanTakeApprovals() {
		t.Error("CanTakeApprovals reports true after the lockout")
	}
	if r := as.do("POST", A+"/submit", "s", decision("approve", "", testCode, ""), nil); r.code != 403 || !strings.Contains(r.err.Error, "takes no more approvals") {
		t.Errorf("the right code after the lockout: %d %s; want 403", r.code, r.body)
	}
	if v, _ := verdictOf(t, as.askForm("s", approvalForm(t, approval.RiskLow, "Read the logs", ""))); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
		t.Errorf("a later approval: %+v; want unresolved at once", v)
	}
	c := as.o.Pending("s")
	if len(c) != 1 {
		t.Fatalf("%d asks pending, want the question", len(c))
	}
	if r := as.do("POST", "/api/asks/"+c[0].AskID+"/submit", "s", `{"answers":{"size":{"selected":["small"]}}}`, nil); r.code != 200 {
		t.Errorf("the question after the lockout: %d %s", r.code, r.body)
	}
	if out := wait(t, question); out.Status != askuser.StatusAnswered {
		t.Errorf("the question ended %s", out.Status)
	}
}

// TestApprovalWithAuthorize: Authorize alone admits the person, who
// decides without a code, as its principal; with a code set too, a
// decision needs both.
func TestApprovalWithAuthorize(t *testing.T) {
	authorize := func(req *http.Request, _ string) (string, error) {
		if req.Header.Get("X-Person") != "ann" {
			return "", errors.New("not ann")
		}
		return "ann", nil
	}
	ann := map[string]string{"X-Person": "ann"}
	t.Run("Authorize alone", func(t *testing.T) {
		as := newAPIServer(t, &web.Options{Authorize: authorize})
		done := as.askForm("s", approvalForm(t, approval.RiskHigh, "Force-push main", ""))
		a := as.waitPending("s", 1)[0]
		if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("approve", "", "", ""), nil); r.code != 403 || !strings.Contains(r.err.Error, "may not answer") {
			t.Errorf("not authorized: %d %s", r.code, r.body)
		}
		if r := as.do("GET", "/api/asks/"+a.AskID, "s", "", ann); r.code != 200 || !strings.Contains(r.body, `"needs_code":false`) {
			t.Errorf("the ask as ann sees it: %d %s", r.code, r.body)
		}
		if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("approve", "", "", ""), ann); r.code != 200 {
			t.Fatalf("authorized: %d %s", r.code, r.body)
		}
		if v, out := verdictOf(t, done); v.Status != approval.Approved || out.Principal != "ann" {
			t.Errorf("verdict %+v by %q; want approved by ann", v, out.Principal)
		}
	})
	t.Run("Authorize and a code", func(t *testing.T) {
		as := newAPIServer(t, &web.Options{Authorize: authorize, ApprovalCode: testCode})
		done := as.askForm("s", approvalForm(t, approval.RiskHigh, "Force-push main", ""))
		a := as.waitPending("s", 1)[0]
		if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("approve", "", "", ""), ann); r.code != 403 || !strings.Contains(r.err.Error, "needs the approval code") {
			t.Errorf("authorized, no code: %d %s", r.code, r.body)
		}
		if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("approve", "", testCode, ""), nil); r.code != 403 || !strings.Contains(r.err.Error, "may not answer") {
			t.Errorf("the code, not authorized: %d %s", r.code, r.body)
		}
		if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("deny_session", "", testCode, ""), ann); r.code != 200 {
			t.Fatalf("both: %d %s", r.code, r.body)
		}
		if v, out := verdictOf(t, done); v.Status != approval.Denied || !v.Remember || out.Principal != "ann" {
			t.Errorf("verdict %+v by %q; want denied for the session by ann", v, out.Principal)
		}
	})
}

// TestApprovalView: what the API says of an approval, pending and ended.
func TestApprovalView(t *testing.T) {
	as := newAPIServer(t, &web.Options{ApprovalCode: testCode})
	f := approvalForm(t, approval.RiskIrreversible, "Delete the bucket logs-2019", "gsutil rm -r gs://logs-2019")
	done := as.askForm("s", f)
	a := as.waitPending("s", 1)[0]
	var got struct {
		Approval map[string]any `json:"approval"`
		Final    *struct {
			State   string         `json:"state"`
			Verdict map[string]any `json:"verdict"`
		} `json:"final"`
	}
	r := as.do("GET", "/api/asks/"+a.AskID, "s", "", nil)
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"action": "Delete the bucket logs-2019", "reason": "It is past its retention", "risk": "irreversible",
		"details": "gsutil rm -r gs://logs-2019", "digest": approval.Digest("Delete the bucket logs-2019", "gsutil rm -r gs://logs-2019"),
		"needs_code": true, "confirm": "approve",
	}
	for k, v := range want {
		if got.Approval[k] != v {
			t.Errorf("approval.%s = %v, want %v", k, got.Approval[k], v)
		}
	}
	if len(got.Approval) != len(want) || got.Final != nil {
		t.Errorf("the pending approval reads %s", r.body)
	}
	if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", decision("deny", "no backup", testCode, ""), nil); r.code != 200 {
		t.Fatalf("deny: %d %s", r.code, r.body)
	}
	verdictOf(t, done)
	r = as.do("GET", "/api/asks/"+a.AskID, "s", "", nil)
	got.Final = nil
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Final == nil || got.Final.State != "denied" || got.Final.Verdict["status"] != "denied" || got.Final.Verdict["decided_by"] != "user" || got.Final.Verdict["note"] != "no backup" {
		t.Errorf("the ended approval reads %s", r.body)
	}
}

// TestApprovalDeadline: nobody decides; at the deadline the approval is
// unresolved. In fake time, with the handler and no connection.
func TestApprovalDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := web.New(&web.Options{ApprovalCode: testCode, Logger: quiet})
		defer r.Close()
		o := &askuser.Orchestrator{Responder: r, Logger: quiet}
		start := time.Now()
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: approvalForm(t, approval.RiskHigh, "Force-push main", "")})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 60*time.Second {
			t.Errorf("the approval ended after %v, want its 60 s", d)
		}
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Unresolved || v.Ended != askuser.ReasonDeadline || len(out.Answers) != 0 {
			t.Errorf("verdict %+v with %d answers; want unresolved at the deadline, none", v, len(out.Answers))
		}
	})
}

// TestApprovalClose: closing the card leaves a pending approval
// unresolved.
func TestApprovalClose(t *testing.T) {
	as := newAPIServer(t, &web.Options{ApprovalCode: testCode})
	done := as.askForm("s", approvalForm(t, approval.RiskLow, "Read the logs", ""))
	as.waitPending("s", 1)
	as.r.Close()
	if v, _ := verdictOf(t, done); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
		t.Errorf("verdict %+v, want unresolved, nobody to ask", v)
	}
}

// TestConformanceApprovals runs the conformance suite on a card that takes
// approvals (it has a code), with nobody connected.
func TestConformanceApprovals(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		r := web.New(&web.Options{Logger: quiet, ApprovalCode: web.NewApprovalCode()})
		t.Cleanup(func() { r.Close() })
		return r
	}, &respondertest.Options{Synctest: true})
}

func TestNewApprovalCode(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		c := web.NewApprovalCode()
		if len(c) != 9 || c[4] != '-' || strings.Trim(c[:4]+c[5:], "0123456789") != "" {
			t.Fatalf("code %q is not 4 digits, a dash, 4 digits", c)
		}
		seen[c] = true
	}
	if len(seen) < 45 {
		t.Errorf("50 codes hold only %d different ones", len(seen))
	}
}
