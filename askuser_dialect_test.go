package askuser

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/internal/wire"
)

// TestMarshalForm checks MarshalForm's mapping of a Form onto the ask_user
// call: every field the contract carries, the stamps, an option by its
// label, and nothing of what the contract does not carry. How a call is
// written (field order, escaping, the stamps' digits) is askuserwire's,
// tested there.
func TestMarshalForm(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		name  string
		call  string
		form  *Form     // instead of call: a form built in Go
		stamp time.Time // zero: not stamped
		want  string
	}{
		{
			name:  "choice, stamped",
			call:  auCall(`{"header":"Env","question":"Where?","options":[{"label":"a","description":"da","default":true},{"label":"b","description":"db"}]}`),
			stamp: time.Date(2026, 11, 30, 10, 0, 0, 123456789, cet),
			want: `{"questions":[{"kind":"choice","id":"question_1","header":"Env","question":"Where?","multi_select":false,"allow_other":true,` +
				`"options":[{"label":"a","description":"da","default":true},{"label":"b","description":"db","default":false}]}],` +
				`"timeout_seconds":300,"asked_at":"2026-11-30T09:00:00.123456789Z","nudge_at":"2026-11-30T09:04:00.123456789Z","expires_at":"2026-11-30T09:05:00.123456789Z"}`,
		},
		{
			name: "secret, unstamped",
			call: auCall(auSecret),
			want: `{"questions":[{"kind":"secret","id":"question_1","header":"Token","question":"Paste it","multi_select":false,"allow_other":false,"options":[],` +
				`"secret_name":"TOKEN","purpose":"to deploy"}],"timeout_seconds":300}`,
		},
		{
			name: "what the contract does not carry is left out",
			form: &Form{
				Title: "Release", Contract: "pi-ask", Unattended: FallbackNothing, CancelDropsAnswers: true,
				TimeoutSeconds: 60, HumanIntent: "Deploying",
				Questions: []Question{{
					ID: "env", Kind: KindChoice, Header: "Env", Text: "Where?", OtherLabel: "Elsewhere", Prefill: "x",
					OtherExclusive: true, NoDefault: true, Sensitive: true, Multiline: true, Optional: true,
					Options: []Option{
						{Value: "stg", Label: "Staging", Description: "safe", Preview: "[stg]", Default: true},
						{Value: "prd", Label: "Production", Description: "live"},
					},
				}},
			},
			want: `{"questions":[{"kind":"choice","id":"env","header":"Env","question":"Where?","multi_select":false,"allow_other":false,` +
				`"options":[{"label":"Staging","description":"safe","default":true},{"label":"Production","description":"live","default":false}]}],` +
				`"timeout_seconds":60,"human_intent":"Deploying"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.form
			if f == nil {
				var err error
				if f, err = decodeAskUser([]byte(tc.call), dialect.Limits{}); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.stamp.IsZero() {
				stamp(f, tc.stamp)
			}
			got, err := marshalForm(f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("MarshalForm (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarshalCallGoBuilt checks that a form built in Go without ids, kinds
// or a timeout marshals into a call that the decoder completes, and that
// MarshalForm refuses a nil form.
func TestMarshalCallGoBuilt(t *testing.T) {
	in := &Form{Questions: []Question{
		{Header: "Env", Text: "Where?", AllowOther: true, Options: []Option{{Label: "a", Description: "da"}, {Label: "b", Description: "db"}}},
		{Kind: KindText, Header: "Name", Text: "Called?"},
	}}
	data, err := marshalForm(in)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"questions":[{"header":"Env","question":"Where?","multi_select":false,"allow_other":true,"options":[{"label":"a","description":"da","default":false},{"label":"b","description":"db","default":false}]},` +
		`{"kind":"text","header":"Name","question":"Called?","multi_select":false,"allow_other":false,"options":[]}]}`
	if diff := cmp.Diff(wantJSON, string(data)); diff != "" {
		t.Errorf("MarshalForm (-want +got):\n%s", diff)
	}
	got, err := decodeAskUser(data, dialect.Limits{MaxTimeoutSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	want := auWant(60,
		Question{ID: "question_1", Kind: KindChoice, Header: "Env", Text: "Where?", AllowOther: true, Options: []Option{auOpt("a", "da", false), auOpt("b", "db", false)}},
		Question{ID: "question_2", Kind: KindText, Header: "Name", Text: "Called?", AllowOther: true},
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}

	if _, err := marshalForm(nil); err == nil {
		t.Error("marshalForm(nil) succeeded")
	}
}

// auAgrees checks, for any input, what the root package adds to the
// ask_user dialect. The orchestrator's decode refuses exactly what
// askuserwire.Decode refuses, with a *dialect.CallError carrying the dialect's path
// and message (so checkForm never refuses a call the dialect accepts). A
// form it accepts has its options' values equal to their labels, marshals
// (MarshalForm) to the bytes the dialect writes for its own Call, and, once
// stamped, into internal/wire's Call (the shape the schema package
// describes); decoding that again gives the same form. It reports whether
// the call was accepted.
func auAgrees(t testing.TB, data []byte, lim dialect.Limits) bool {
	t.Helper()
	c, derr := askuserwire.Decode(data, lim)
	form, err := decodeAskUser(data, lim)
	if derr != nil {
		var de *askuserwire.Error
		if !errors.As(derr, &de) {
			t.Fatalf("askuserwire.Decode: %T %v, want an *askuserwire.Error", derr, derr)
		}
		var ce *dialect.CallError
		if !errors.As(err, &ce) || form != nil {
			t.Fatalf("the dialect refuses %q (%v); the orchestrator's decode gives %v, %T %v, want a *dialect.CallError", data, derr, form, err, err)
		}
		if diff := cmp.Diff(dialect.CallError{Path: de.Path, Message: de.Message}, *ce); diff != "" {
			t.Fatalf("the dialect's refusal of %q, as a *dialect.CallError (-want +got):\n%s", data, diff)
		}
		return false
	}
	if err != nil {
		t.Fatalf("the dialect accepts %q; the orchestrator's decode refuses it: %v", data, err)
	}
	if form.Contract != askuserwire.ToolName {
		t.Fatalf("Contract %q, want %q", form.Contract, askuserwire.ToolName)
	}
	for i := range form.Questions {
		for _, o := range form.Questions[i].Options {
			if o.Value != o.Label {
				t.Fatalf("questions[%d]: option value %q, label %q; want the label as the value", i, o.Value, o.Label)
			}
		}
	}
	got, err := marshalForm(form)
	if err != nil {
		t.Fatalf("MarshalForm: %v", err)
	}
	want, err := askuserwire.Marshal(c)
	if err != nil {
		t.Fatalf("askuserwire.Marshal: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("MarshalForm writes what askuserwire.Marshal does not:\nMarshalForm: %s\nthe dialect: %s", got, want)
	}

	stamp(form, time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.UTC))
	out, err := marshalForm(form)
	if err != nil {
		t.Fatalf("MarshalForm: %v", err)
	}
	var w wire.Call
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("MarshalForm's output is not internal/wire's Call: %v\n%s", err, out)
	}
	if w.AskedAt == nil || w.NudgeAt == nil || w.ExpiresAt == nil {
		t.Fatalf("a stamp is missing: %s", out)
	}
	again, err := decodeAskUser(out, lim)
	if err != nil {
		t.Fatalf("the marshalled form does not decode again: %v\ninput:  %s\noutput: %s", err, data, out)
	}
	form.AskedAt, form.NudgeAt, form.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
	if diff := cmp.Diff(form, again); diff != "" {
		t.Fatalf("decoding the marshalled form changes it (-first +second):\n%s\ninput:  %s\noutput: %s", diff, data, out)
	}
	return true
}

// auValidCalls are valid calls: dialect/askuserwire's testdata, the
// benchmark's call, and a few more.
func auValidCalls(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("dialect/askuserwire/testdata/calls/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no calls in dialect/askuserwire/testdata/calls: %v", err)
	}
	calls := map[string][]byte{}
	for _, f := range append(files, "testdata/bench/call4.json") {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		calls[filepath.Base(f)] = data
	}
	for name, call := range map[string]string{
		"choice":                       auCall(auChoice),
		"secret":                       auCall(auSecret),
		"four texts":                   auCall(auText, auText, auText, auText),
		"a generated id taken":         auCall(auText, `{"kind":"text","id":"question_1","header":"H","question":"Q?"}`),
		"multi-select with 2 defaults": auCall(`{"header":"H","question":"Q?","multi_select":true,"allow_other":false,"options":[{"label":"x","description":"d","default":true},{"label":"y","description":"d","default":true}]}`),
		"timeout 1":                    `{"questions":[` + auChoice + `],"timeout_seconds":1}`,
		"human_intent":                 `{"questions":[` + auChoice + `],"human_intent":"Deploying the login fix"}`,
	} {
		calls[name] = []byte(call)
	}
	return calls
}

// TestMarshalCallRoundTrip holds valid calls to auAgrees.
func TestMarshalCallRoundTrip(t *testing.T) {
	for name, data := range auValidCalls(t) {
		t.Run(name, func(t *testing.T) {
			if !auAgrees(t, data, dialect.Limits{}) {
				t.Fatalf("%s is not a valid call", data)
			}
		})
	}
}

func marshalForm(f *Form) ([]byte, error) { return askUserDialect{}.MarshalForm(f) }
