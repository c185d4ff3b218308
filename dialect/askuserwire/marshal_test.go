package askuserwire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/dialect"
	"github.com/google/go-cmp/cmp"
)

func TestMarshal(t *testing.T) {
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
			name:  "human_intent after timeout_seconds, before the stamps",
			call:  `{"human_intent":" Deploying the login fix ","questions":[` + auText + `],"timeout_seconds":7}`,
			stamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			want: `{"questions":[{"kind":"text","id":"question_1","header":"H","question":"Q?","multi_select":false,"allow_other":true,"options":[]}],` +
				`"timeout_seconds":7,"human_intent":" Deploying the login fix ","asked_at":"2026-01-02T03:04:05.000000000Z","nudge_at":"2026-01-02T03:04:10.000000000Z","expires_at":"2026-01-02T03:04:12.000000000Z"}`,
		},
		{
			name: "human_intent empty, left out",
			call: `{"questions":[` + auText + `],"human_intent":""}`,
			want: `{"questions":[{"kind":"text","id":"question_1","header":"H","question":"Q?","multi_select":false,"allow_other":true,"options":[]}],"timeout_seconds":300}`,
		},
		{
			name: "strings escaped as encoding/json does without HTML escaping",
			call: auCall(`{"kind":"text","header":"<a&b>","question":"\"q\"\\\n\t\u0001\u007f\u2028é😀"}`),
			want: `{"questions":[{"kind":"text","id":"question_1","header":"<a&b>","question":"\"q\"\\\n\t\u0001` + "\x7f" + `\u2028é😀","multi_select":false,"allow_other":true,"options":[]}],"timeout_seconds":300}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode([]byte(tc.call), dialect.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.stamp.IsZero() {
				c.Stamp(tc.stamp)
			}
			got, err := Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarshalGoBuilt checks that a call built in Go without ids, kinds
// or a timeout marshals into one that the decoder completes.
func TestMarshalGoBuilt(t *testing.T) {
	in := &Call{Questions: []Question{
		{Header: "Env", Question: "Where?", AllowOther: true, Options: []Option{{Label: "a", Description: "da"}, {Label: "b", Description: "db"}}},
		{Kind: "text", Header: "Name", Question: "Called?"},
	}}
	data, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"questions":[{"header":"Env","question":"Where?","multi_select":false,"allow_other":true,"options":[{"label":"a","description":"da","default":false},{"label":"b","description":"db","default":false}]},` +
		`{"kind":"text","header":"Name","question":"Called?","multi_select":false,"allow_other":false,"options":[]}]}`
	if diff := cmp.Diff(wantJSON, string(data)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
	got, err := Decode(data, dialect.Limits{MaxTimeoutSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	want := auWant(60,
		Question{ID: "question_1", Kind: "choice", Header: "Env", Question: "Where?", AllowOther: true, Options: []Option{auOpt("a", "da", false), auOpt("b", "db", false)}},
		Question{ID: "question_2", Kind: "text", Header: "Name", Question: "Called?", AllowOther: true, Options: []Option{}},
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}

	if _, err := Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
}

// auRoundTrip checks the normalization's promise for one valid call: the normalized
// call validates again, decoding Marshal's output gives the same call
// apart from the stamps, and Marshal's output is a fixed point.
func auRoundTrip(t testing.TB, data []byte, lim dialect.Limits) {
	t.Helper()
	c1, err := Decode(data, lim)
	if err != nil {
		return
	}
	c1.Stamp(time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.UTC))
	out1, err := Marshal(c1)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	c2, err := Decode(out1, lim)
	if err != nil {
		t.Fatalf("the normalized call does not validate again: %v\ninput:  %s\noutput: %s", err, data, out1)
	}
	c1.AskedAt, c1.NudgeAt, c1.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
	if diff := cmp.Diff(c1, c2); diff != "" {
		t.Fatalf("decoding the normalized call changes it (-first +second):\n%s\ninput:  %s\noutput: %s", diff, data, out1)
	}
	out2, err := Marshal(c2)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var stamped wireCall
	dec := json.NewDecoder(bytes.NewReader(out1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&stamped); err != nil {
		t.Fatalf("Marshal's output is not the ask_user JSON: %v\n%s", err, out1)
	}
	if stamped.AskedAt == nil {
		t.Fatalf("asked_at missing: %s", out1)
	}
	stamped.AskedAt, stamped.NudgeAt, stamped.ExpiresAt = nil, nil, nil
	var unstamped wireCall
	if err := json.Unmarshal(out2, &unstamped); err != nil {
		t.Fatalf("Marshal's output is not JSON: %v\n%s", err, out2)
	}
	if diff := cmp.Diff(stamped, unstamped); diff != "" {
		t.Fatalf("normalizing again changes more than the stamps (-first +second):\n%s", diff)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
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
			if _, err := Decode(data, dialect.Limits{}); err != nil {
				t.Fatalf("%s is not a valid call: %v", f, err)
			}
			auRoundTrip(t, data, dialect.Limits{})
		})
	}
	inline := []string{
		auCall(auChoice),
		auCall(auSecret),
		auCall(auText, auText, auText, auText),
		auCall(auText, `{"kind":"text","id":"question_1","header":"H","question":"Q?"}`),
		`{"questions":[` + auChoice + `],"human_intent":"Deploying the login fix"}`,
		`{"questions":[` + auChoice + `],"human_intent":"  "}`,
		`{"questions":[` + auChoice + `],"human_intent":"` + strings.Repeat("🚀", 120) + `"}`,
		auCall(`{"header":"H","question":"Q?","multi_select":true,"allow_other":false,"options":[{"label":"x","description":"d","default":true},{"label":"y","description":"d","default":true}]}`),
		`{"questions":[` + auChoice + `],"timeout_seconds":1}`,
	}
	for _, call := range inline {
		if _, err := Decode([]byte(call), dialect.Limits{}); err != nil {
			t.Fatalf("%s is not a valid call: %v", call, err)
		}
		auRoundTrip(t, []byte(call), dialect.Limits{})
	}
}

// TestMarshalStampsParse checks that the stamps read back as the times
// written.
func TestMarshalStampsParse(t *testing.T) {
	c, err := Decode([]byte(auCall(auText)), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c.Stamp(time.Date(2026, 11, 30, 9, 0, 0, 100, time.FixedZone("X", -7*3600)))
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var w wireCall
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

// The ask_user JSON shapes, as encoding/json reads them: pointer fields
// tell an absent field from a given one.
type wireCall struct {
	Questions      []wireQuestion `json:"questions"`
	TimeoutSeconds *int           `json:"timeout_seconds,omitempty"`
	AskedAt        *string        `json:"asked_at,omitempty"`
	NudgeAt        *string        `json:"nudge_at,omitempty"`
	ExpiresAt      *string        `json:"expires_at,omitempty"`
	HumanIntent    *string        `json:"human_intent,omitempty"`
}

type wireQuestion struct {
	Kind        *string      `json:"kind,omitempty"`
	ID          *string      `json:"id,omitempty"`
	Header      *string      `json:"header"`
	Question    *string      `json:"question"`
	MultiSelect *bool        `json:"multi_select,omitempty"`
	AllowOther  *bool        `json:"allow_other,omitempty"`
	Options     []wireOption `json:"options,omitempty"`
	SecretName  *string      `json:"secret_name,omitempty"`
	Purpose     *string      `json:"purpose,omitempty"`
}

type wireOption struct {
	Label       *string `json:"label"`
	Description *string `json:"description"`
	Default     *bool   `json:"default,omitempty"`
}

// TestMarshalStrings checks that every string is written as encoding/json
// writes it without HTML escaping, also a string that is not valid UTF-8
// (which only a call built in Go can hold).
func TestMarshalStrings(t *testing.T) {
	for _, s := range []string{
		"", "plain", `qu"ote`, `back\slash`, "\b\f\n\r\t\x00\x01\x1f\x7f", "<a&b>", "é😀", "a\u2028b\u2029c",
		"\ufffd", "a\xffb", "\xff", "\xed\xa0\x80", "\xe2\x80", "ok\xc3", "\xf0\x9f\x98\x80\xf0\x9f", "x\u2028\xffy",
	} {
		c := &Call{Questions: []Question{{Kind: s, ID: s, Header: s, Question: s, Options: []Option{{Label: s, Description: s}}, SecretName: s, Purpose: s}}, HumanIntent: s}
		got, err := Marshal(c)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", s, err)
		}
		lit := jsonLiteral(s)
		want := `{"questions":[{`
		if s != "" {
			want += `"kind":` + lit + `,"id":` + lit + `,`
		}
		want += `"header":` + lit + `,"question":` + lit + `,"multi_select":false,"allow_other":false,` +
			`"options":[{"label":` + lit + `,"description":` + lit + `,"default":false}]`
		if s != "" {
			want += `,"secret_name":` + lit + `,"purpose":` + lit
		}
		want += `}]`
		if s != "" {
			want += `,"human_intent":` + lit
		}
		want += `}`
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("Marshal of %q (-want +got):\n%s", s, diff)
		}
	}
}

// TestMarshalEmpty checks a call without questions and a negative
// timeout: Marshal writes what it is given.
func TestMarshalEmpty(t *testing.T) {
	for _, tc := range []struct {
		call *Call
		want string
	}{
		{&Call{}, `{"questions":[]}`},
		{&Call{TimeoutSeconds: -3}, `{"questions":[],"timeout_seconds":-3}`},
		{&Call{Questions: []Question{{}}}, `{"questions":[{"header":"","question":"","multi_select":false,"allow_other":false,"options":[]}]}`},
	} {
		got, err := Marshal(tc.call)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("Marshal(%+v) (-want +got):\n%s", tc.call, diff)
		}
	}
}

// TestMarshalHumanIntent checks that human_intent survives Marshal and
// Decode exactly, written between timeout_seconds and the stamps, and that
// an empty one is left out.
func TestMarshalHumanIntent(t *testing.T) {
	for _, intent := range []string{"", "Deploying the login fix", " \t", "é\"q\"\u2028<&>", strings.Repeat("🚀", 120)} {
		in := &Call{Questions: []Question{{Kind: "text", Header: "H", Question: "Q?"}}, TimeoutSeconds: 9, HumanIntent: intent}
		in.Stamp(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
		data, err := Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		i, j := bytes.Index(data, []byte(`"timeout_seconds"`)), bytes.Index(data, []byte(`"asked_at"`))
		k := bytes.Index(data, []byte(`"human_intent"`))
		switch {
		case intent == "" && k >= 0:
			t.Errorf("an empty human_intent is written: %s", data)
		case intent != "" && !(i < k && k < j):
			t.Errorf("human_intent %q is not written between timeout_seconds and asked_at: %s", intent, data)
		}
		got, err := Decode(data, dialect.Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		if got.HumanIntent != intent {
			t.Errorf("human_intent %q reads back as %q from %s", intent, got.HumanIntent, data)
		}
	}
}
