package askuser_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/askusertool"
)

// TestRequestApprovalDecode: a call becomes the form approvaltool.Form makes of
// it, with the call's human_intent and the contract's name, and passes the
// orchestrator's own check of a dialect's forms.
func TestRequestApprovalDecode(t *testing.T) {
	d := approvaltool.Dialect()
	if d.Name() != "request_approval" {
		t.Errorf("Name() = %q", d.Name())
	}
	got, err := askuser.Decode(d, []byte(`{"action":"Delete the S3 bucket logs-2023","reason":"Archived","risk":"high","details":"aws s3 rb s3://logs-2023","timeout_seconds":90,"human_intent":"Cleaning up"}`), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := approvaltool.Form(approval.Request{Action: "Delete the S3 bucket logs-2023", Reason: "Archived", Risk: approval.RiskHigh, Details: "aws s3 rb s3://logs-2023"}, 90)
	if err != nil {
		t.Fatal(err)
	}
	want.HumanIntent, want.Contract = "Cleaning up", "request_approval"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Approval.Digest != approval.Digest("Delete the S3 bucket logs-2023", "aws s3 rb s3://logs-2023") {
		t.Errorf("digest %s", got.Approval.Digest)
	}

	// No timeout: the ceiling in force.
	got, err = askuser.Decode(d, []byte(`{"action":"a","reason":"r","risk":"low"}`), dialect.Limits{MaxTimeoutSeconds: 45})
	if err != nil || got.TimeoutSeconds != 45 || got.Approval.Details != "" {
		t.Errorf("Decode = %+v, %v; want the ceiling of 45 s", got, err)
	}
}

// TestRequestApprovalDecodeErrors: an invalid call is a *dialect.CallError with
// the contract's message and the path of a shape problem.
func TestRequestApprovalDecodeErrors(t *testing.T) {
	tests := []struct{ data, path, msg string }{
		{`{"action":"a","reason":"r","risk":"low","timeout_seconds":301}`, "", "invalid request_approval arguments: timeout_seconds must be between 1 and 300"},
		{`{"action":"a","reason":"r","risk":"low","timeout_seconds":121}`, "", "invalid request_approval arguments: timeout_seconds must be between 1 and 120"},
		{`{"action":"a","reason":"r","risk":"low","questions":[]}`, "questions", "invalid request_approval arguments: questions: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent"},
		{`{"reason":"r","risk":"low"}`, "", "invalid request_approval arguments: action must not be empty; say what will be done"},
	}
	for _, tt := range tests {
		lim := dialect.Limits{}
		if strings.Contains(tt.msg, "120") {
			lim.MaxTimeoutSeconds = 120
		}
		_, err := askuser.Decode(approvaltool.Dialect(), []byte(tt.data), lim)
		var ce *dialect.CallError
		if !errors.As(err, &ce) || ce.Message != tt.msg || ce.Path != tt.path || ce.Result != nil {
			t.Errorf("Decode(%s) = %#v; want message %q at %q", tt.data, err, tt.msg, tt.path)
		}
	}
}

// TestRequestApprovalMarshalCall: a normalized approval form is written
// back as the call it came from, which decodes to the same form; a form
// that is not an approval's is refused.
func TestRequestApprovalMarshalCall(t *testing.T) {
	d := approvaltool.Dialect()
	call := `{"action":"Send the invoice to ACME <billing@acme.example>","reason":"Month end","risk":"medium","details":"Total: 1,200 €","timeout_seconds":120,"human_intent":"Closing the month"}`
	f, err := askuser.Decode(d, []byte(call), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := approvaltool.MarshalCall(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != call {
		t.Errorf("MarshalCall\n got %s\nwant %s", out, call)
	}
	again, err := askuser.Decode(d, out, dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, again); diff != "" {
		t.Errorf("decoded again (-first +again):\n%s", diff)
	}
	plain, err := askuser.Decode(askusertool.Dialect(), []byte(`{"questions":[{"header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := approvaltool.MarshalCall(plain); err == nil {
		t.Errorf("MarshalCall of an ask_user form = %s", b)
	}
	if _, err := approvaltool.MarshalCall(nil); err == nil {
		t.Error("MarshalCall(nil) succeeded")
	}
}

// TestRequestApprovalEncode renders outcomes built by hand, including the
// endings Handle never hands a model (the caller going away) and an
// outcome no orchestrator makes (submitted without a decision): every
// undecided ending other than the four named ones is a fault, never a
// decision.
func TestRequestApprovalEncode(t *testing.T) {
	f, err := approvaltool.Form(approval.Request{Action: "a", Reason: "r", Risk: approval.RiskLow}, 10)
	if err != nil {
		t.Fatal(err)
	}
	digest := approval.Digest("a", "")
	pick := func(v string) []askuser.FinalAnswer {
		return []askuser.FinalAnswer{{QuestionID: approval.QuestionID, Selected: []string{v}, Note: " ok ", By: askuser.ByUser}}
	}
	type top struct {
		Status         string  `json:"status"`
		DecidedBy      *string `json:"decided_by"`
		Note           *string `json:"note"`
		Ended          string  `json:"ended"`
		ActionDigest   string  `json:"action_digest"`
		Remember       string  `json:"remember"`
		RememberedFrom string  `json:"remembered_from"`
	}
	tests := []struct {
		name       string
		o          askuser.Outcome
		status     string
		decidedBy  string
		ended      string
		note       string
		remember   string
		remembered string
	}{
		{"submitted approve", askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: pick(approval.ApproveOnce)}, "approved", "user", "", "ok", "", ""},
		{"submitted approve for the session", askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: pick(approval.ApproveSession)}, "approved", "user", "", "ok", "session", ""},
		{"submitted deny", askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: pick(approval.DenyOnce)}, "denied", "user", "", "ok", "", ""},
		{"submitted deny for the session", askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: pick(approval.DenySession)}, "denied", "user", "", "ok", "session", ""},
		{"submitted without a decision", askuser.Outcome{Reason: askuser.ReasonSubmitted}, "unresolved", "", "fault", "", "", ""},
		{"declined", askuser.Outcome{Reason: askuser.ReasonDeclined}, "denied", "user", "", "", "", ""},
		{"policy", askuser.Outcome{Reason: askuser.ReasonPolicy, Answers: pick(approval.ApproveOnce)}, "approved", "policy", "", "ok", "", ""},
		{"remembered", askuser.Outcome{Reason: askuser.ReasonRemembered, RememberedFrom: "ask-1", Answers: pick(approval.DenyOnce)}, "denied", "remembered", "", "ok", "", "ask-1"},
		{"deadline with approve picked", askuser.Outcome{Reason: askuser.ReasonDeadline, Answers: pick(approval.ApproveOnce)}, "unresolved", "", "deadline", "", "", ""},
		{"unattended", askuser.Outcome{Reason: askuser.ReasonUnattended}, "unresolved", "", "unattended", "", "", ""},
		{"dismissed with approve picked", askuser.Outcome{Reason: askuser.ReasonDismissed, Answers: pick(approval.ApproveOnce)}, "unresolved", "", "dismissed", "", "", ""},
		{"superseded", askuser.Outcome{Reason: askuser.ReasonSuperseded}, "unresolved", "", "superseded", "", "", ""},
		{"fault with approve picked", askuser.Outcome{Reason: askuser.ReasonFault, Answers: pick(approval.ApproveOnce)}, "unresolved", "", "fault", "", "", ""},
		{"the caller went away", askuser.Outcome{Reason: askuser.ReasonCaller, Answers: pick(approval.ApproveSession)}, "unresolved", "", "fault", "", "", ""},
		{"an ending no orchestrator knows", askuser.Outcome{Reason: "exploded"}, "unresolved", "", "fault", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Form = f
			b, rec, err := approvaltool.Dialect().Encode(&o, true)
			if err != nil || rec != nil {
				t.Fatalf("Encode = %s, %s, %v", b, rec, err)
			}
			var got top
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			if got.Status != tt.status || str(got.DecidedBy) != tt.decidedBy || got.Ended != tt.ended || str(got.Note) != tt.note ||
				got.Remember != tt.remember || got.RememberedFrom != tt.remembered || got.ActionDigest != digest {
				t.Errorf("result %s", b)
			}
		})
	}

	notApproval := &askuser.Outcome{Form: &askuser.Form{Questions: []askuser.Question{{ID: "q", Text: "?"}}}, Reason: askuser.ReasonSubmitted}
	if b, _, err := approvaltool.Dialect().Encode(notApproval, false); err == nil {
		t.Errorf("Encode of an outcome that is not an approval's = %s", b)
	}
}

// FuzzRequestApprovalDecode: whatever the model sends, the dialect either
// refuses it with the contract's message or returns a form that the
// orchestrator's own check of dialects (Normalize's rules, and the shape
// approvaltool.Form gives an approval) accepts — never an internal error.
func FuzzRequestApprovalDecode(f *testing.F) {
	for _, s := range []string{
		`{"action":"a","reason":"r","risk":"low"}`,
		`{"action":"a","reason":"r","risk":"irreversible","details":"é\u00e9","timeout_seconds":300,"human_intent":"h"}`,
		"{\"action\":\"\\ud800\",\"reason\":\"\xff\",\"risk\":\"high\"}",
		`{"action":" ","reason":"r","risk":"low"}`, `{"risk":"x"}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		form, err := askuser.Decode(approvaltool.Dialect(), data, dialect.Limits{})
		if err != nil {
			var ce *dialect.CallError
			if !errors.As(err, &ce) || !strings.HasPrefix(ce.Message, "invalid request_approval arguments: ") {
				t.Fatalf("Decode error %v; want the contract's message", err)
			}
			return
		}
		if form.Approval == nil || form.Approval.Digest != approval.Digest(form.Approval.Action, form.Approval.Details) || form.Contract != "request_approval" {
			t.Fatalf("form %+v", form)
		}
		if _, err := askuser.Normalize(form, dialect.Limits{}); err != nil {
			t.Fatalf("the decoded form does not normalize: %v", err)
		}
	})
}
