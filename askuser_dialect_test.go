package askuser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/internal/wire"
)

func TestMarshalForm(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		name  string
		call  string
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
			name:  "nine digits always",
			call:  `{"questions":[` + auText + `],"timeout_seconds":7}`,
			stamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			want: `{"questions":[{"kind":"text","id":"question_1","header":"H","question":"Q?","multi_select":false,"allow_other":true,"options":[]}],` +
				`"timeout_seconds":7,"asked_at":"2026-01-02T03:04:05.000000000Z","nudge_at":"2026-01-02T03:04:10.000000000Z","expires_at":"2026-01-02T03:04:12.000000000Z"}`,
		},
		{
			name: "secret, unstamped",
			call: auCall(auSecret),
			want: `{"questions":[{"kind":"secret","id":"question_1","header":"Token","question":"Paste it","multi_select":false,"allow_other":false,"options":[],` +
				`"secret_name":"TOKEN","purpose":"to deploy"}],"timeout_seconds":300}`,
		},
		{
			name: "strings escaped as encoding/json does without HTML escaping",
			call: auCall(`{"kind":"text","header":"<a&b>","question":"\"q\"\\\n\t\u0001\u007f\u2028é😀"}`),
			want: `{"questions":[{"kind":"text","id":"question_1","header":"<a&b>","question":"\"q\"\\\n\t\u0001` + "\x7f" + `\u2028é😀","multi_select":false,"allow_other":true,"options":[]}],"timeout_seconds":300}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := decodeAskUser([]byte(tc.call), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.stamp.IsZero() {
				stamp(c, tc.stamp)
			}
			got, err := marshalForm(c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("MarshalCall (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarshalCallGoBuilt checks that a call built in Go without ids, kinds
// or a timeout marshals into one that the decoder completes.
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
		t.Errorf("MarshalCall (-want +got):\n%s", diff)
	}
	got, err := decodeAskUser(data, Limits{MaxTimeoutSeconds: 60})
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

// auRoundTrip checks the normalization's promise for one valid call: the normalized
// call validates again, decoding MarshalCall's output gives the same call
// apart from the stamps, and MarshalCall's output is a fixed point.
func auRoundTrip(t testing.TB, data []byte, lim Limits) {
	t.Helper()
	c1, err := decodeAskUser(data, lim)
	if err != nil {
		return
	}
	stamp(c1, time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.UTC))
	out1, err := marshalForm(c1)
	if err != nil {
		t.Fatalf("MarshalCall: %v", err)
	}
	c2, err := decodeAskUser(out1, lim)
	if err != nil {
		t.Fatalf("the normalized call does not validate again: %v\ninput:  %s\noutput: %s", err, data, out1)
	}
	c1.AskedAt, c1.NudgeAt, c1.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
	if diff := cmp.Diff(c1, c2); diff != "" {
		t.Fatalf("decoding the normalized call changes it (-first +second):\n%s\ninput:  %s\noutput: %s", diff, data, out1)
	}
	out2, err := marshalForm(c2)
	if err != nil {
		t.Fatalf("MarshalCall: %v", err)
	}
	var stamped wire.Call
	dec := json.NewDecoder(bytes.NewReader(out1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&stamped); err != nil {
		t.Fatalf("MarshalCall's output is not the ask_user JSON: %v\n%s", err, out1)
	}
	if stamped.AskedAt == nil {
		t.Fatalf("asked_at missing: %s", out1)
	}
	stamped.AskedAt, stamped.NudgeAt, stamped.ExpiresAt = nil, nil, nil
	var unstamped wire.Call
	if err := json.Unmarshal(out2, &unstamped); err != nil {
		t.Fatalf("MarshalCall's output is not JSON: %v\n%s", err, out2)
	}
	if diff := cmp.Diff(stamped, unstamped); diff != "" {
		t.Fatalf("normalizing again changes more than the stamps (-first +second):\n%s", diff)
	}
}

func TestMarshalCallRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/calls/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no calls in testdata/calls: %v", err)
	}
	files = append(files, "testdata/bench/call4.json")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodeAskUser(data, Limits{}); err != nil {
				t.Fatalf("%s is not a valid call: %v", f, err)
			}
			auRoundTrip(t, data, Limits{})
		})
	}
	inline := []string{
		auCall(auChoice),
		auCall(auSecret),
		auCall(auText, auText, auText, auText),
		auCall(auText, `{"kind":"text","id":"question_1","header":"H","question":"Q?"}`),
		auCall(`{"header":"H","question":"Q?","multi_select":true,"allow_other":false,"options":[{"label":"x","description":"d","default":true},{"label":"y","description":"d","default":true}]}`),
		`{"questions":[` + auChoice + `],"timeout_seconds":1}`,
	}
	for _, call := range inline {
		if _, err := decodeAskUser([]byte(call), Limits{}); err != nil {
			t.Fatalf("%s is not a valid call: %v", call, err)
		}
		auRoundTrip(t, []byte(call), Limits{})
	}
}

// TestMarshalCallStampsParse checks that the stamps read back as the times
// written.
func TestMarshalCallStampsParse(t *testing.T) {
	c, err := decodeAskUser([]byte(auCall(auText)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	stamp(c, time.Date(2026, 11, 30, 9, 0, 0, 100, time.FixedZone("X", -7*3600)))
	data, err := marshalForm(c)
	if err != nil {
		t.Fatal(err)
	}
	var w wire.Call
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		text *string
		want time.Time
	}{{w.AskedAt, c.AskedAt}, {w.NudgeAt, c.NudgeAt}, {w.ExpiresAt, c.ExpiresAt}} {
		got, err := time.Parse(time.RFC3339Nano, *s.text)
		if err != nil || !got.Equal(s.want) || !strings.HasSuffix(*s.text, ".000000100Z") {
			t.Errorf("stamp %q: parsed %v, %v; want %v in UTC with nine digits", *s.text, got, err, s.want)
		}
	}
}

func marshalForm(f *Form) ([]byte, error) { return AskUser().(FormMarshaler).MarshalForm(f) }
