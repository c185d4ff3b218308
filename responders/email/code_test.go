package email

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// sentCode is what a test's SendCode was given.
type sentCode struct {
	mailbox, ask, code string
}

func codeSender(fail error) (func(context.Context, string, *askuser.Ask, string) error, <-chan sentCode) {
	ch := make(chan sentCode, 8)
	return func(_ context.Context, mailbox string, a *askuser.Ask, code string) error {
		if fail != nil {
			return fail
		}
		ch <- sentCode{mailbox, a.ID(), code}
		return nil
	}, ch
}

// post is the confirm page's POST with the code typed.
func post(r *Responder, path, code string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec
}

const approvalCall = `{"action":"Restart the login service","reason":"it holds a stale certificate","risk":"high"}`

// TestApprovalCode: with SendCode (and no Authorize) the responder takes
// approvals; the code goes apart from the mail, to the mailbox's person,
// before the mail; the confirm page asks for it; a missing or wrong code
// decides nothing (counted, saying how many attempts are left); the right
// one, in any case and without its dash, decides, as the mailbox.
func TestApprovalCode(t *testing.T) {
	m := newMailbox(t, false)
	send, sent := codeSender(nil)
	r := newResponder(t, m, Options{SendCode: send})
	if !r.CanTakeApprovals() {
		t.Fatal("a responder with SendCode takes no approvals")
	}
	o, out := handle(t, r, askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(), Arguments: []byte(approvalCall)})
	sc := <-sent
	_, text, _ := parts(t, m.next(t))
	if sc.mailbox != "oncall@example.test" || len(sc.code) != 9 || sc.code[4] != '-' || strings.Contains(text, sc.code) || !strings.Contains(text, "code sent to you apart") {
		t.Fatalf("sent %+v; the mail:\n%s\nwant a XXXX-XXXX code for the mailbox, not in the mail, which says it comes apart", sc, text)
	}
	approve := linkRE.FindAllStringSubmatch(text, -1)[0][1]
	if rec := hit(r, http.MethodGet, approve); rec.Code != 200 || !strings.Contains(rec.Body.String(), `<input name="code"`) {
		t.Fatalf("the confirm page: %d %s; want it to ask for the code", rec.Code, rec.Body)
	}
	if rec := post(r, approve, ""); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Type the code") {
		t.Errorf("no code: %d %s", rec.Code, rec.Body)
	}
	if rec := post(r, approve, "AAAA-AAAA"); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "4 attempts are left") {
		t.Errorf("a wrong code: %d %s; want 403 with 4 attempts left", rec.Code, rec.Body)
	}
	if p := o.Pending("s"); len(p) != 1 {
		t.Fatalf("after a wrong code the approval is not pending: %+v", p)
	}
	if rec := post(r, approve, strings.ToLower(strings.ReplaceAll(sc.code, "-", ""))); rec.Code != http.StatusOK {
		t.Fatalf("the right code: %d %s", rec.Code, rec.Body)
	}
	res := <-out
	if v, _ := approvaltool.VerdictOf(res); v.Status != approval.Approved || v.DecidedBy != askuser.ByUser || res.Principal != "mailto:oncall@example.test" {
		t.Errorf("verdict %+v, principal %q; want approved by the user, as the mailbox", v, res.Principal)
	}
}

// TestApprovalCodeAttempts: after MaxCodeAttempts wrong codes an approval
// is not decided by email, even with the right code; the link is not used
// up by them.
func TestApprovalCodeAttempts(t *testing.T) {
	m := newMailbox(t, false)
	send, sent := codeSender(nil)
	r := newResponder(t, m, Options{SendCode: send})
	o, out := handle(t, r, askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(), Arguments: []byte(approvalCall)})
	sc := <-sent
	_, text, _ := parts(t, m.next(t))
	deny := linkRE.FindAllStringSubmatch(text, -1)[1][1]
	for i := range MaxCodeAttempts {
		rec := post(r, deny, "WRONG-CODE")
		if rec.Code != http.StatusForbidden {
			t.Fatalf("wrong code %d: %d %s", i+1, rec.Code, rec.Body)
		}
		if i == MaxCodeAttempts-1 && !strings.Contains(rec.Body.String(), "last attempt") {
			t.Errorf("the last wrong code: %s; want it to say it was the last", rec.Body)
		}
	}
	if rec := post(r, deny, sc.code); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "no longer decided by email") {
		t.Errorf("the right code after the attempts: %d %s; want 403", rec.Code, rec.Body)
	}
	if p := o.Pending("s"); len(p) != 1 {
		t.Fatalf("the approval was decided: %+v", p)
	}
	o.Supersede("s")
	if v, _ := approvaltool.VerdictOf(<-out); v.Status != approval.Unresolved {
		t.Errorf("verdict %+v; want unresolved", v)
	}
}

// TestApprovalCodeNotSent: an approval whose code cannot be sent is not
// mailed: nobody can be asked, and it ends unresolved.
func TestApprovalCodeNotSent(t *testing.T) {
	m := newMailbox(t, false)
	send, _ := codeSender(errors.New("the SMS gateway is down"))
	r := newResponder(t, m, Options{SendCode: send})
	_, out := handle(t, r, askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(), Arguments: []byte(approvalCall)})
	res := <-out
	if v, _ := approvaltool.VerdictOf(res); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
		t.Errorf("verdict %+v; want unresolved, nobody asked", v)
	}
	select {
	case raw := <-m.got:
		t.Errorf("the approval was mailed without its code: %s", raw)
	default:
	}
}
