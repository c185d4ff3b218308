package journal_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
)

// summary lists what Read yields: "rec ID" for a record, "line N: reason"
// for a *LineError (with " (torn)" when torn), "err: ..." for another error.
func summary(in string) []string {
	var got []string
	for rec, err := range journal.Read(strings.NewReader(in)) {
		var le *journal.LineError
		switch {
		case errors.As(err, &le):
			s := fmt.Sprintf("line %d: %s", le.Line, le.Reason)
			if le.Torn {
				s += " (torn)"
			}
			got = append(got, s)
		case err != nil:
			got = append(got, "err: "+err.Error())
		default:
			got = append(got, "rec "+rec.AskID)
		}
	}
	return got
}

func TestRead(t *testing.T) {
	a, b := line(t, record("a")), line(t, record("b"))
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"two records", a + "\n" + b + "\n", []string{"rec a", "rec b"}},
		{"a torn last line is skipped", a + "\n" + b[:40], []string{"rec a"}},
		{"a torn last line of zero bytes is skipped", a + "\n\x00\x00\x00", []string{"rec a"}},
		{"a whole last line without its newline is kept", a + "\n" + b, []string{"rec a", "rec b"}},
		{"blank lines are skipped", "\n" + a + "\n  \n" + b + "\n", []string{"rec a", "rec b"}},
		{"a torn line closed by a later Open", a + "\n" + b[:40] + "\n" + b + "\n",
			[]string{"rec a", "line 2: an incomplete record, cut short by a crash (torn)", "rec b"}},
		{"zeros a file system left after a crash", a[:30] + "\x00\x00\x00\n" + b + "\n",
			[]string{"line 1: an incomplete record, cut short by a crash (torn)", "rec b"}},
		{"a malformed line is reported and reading goes on", a + "\nnot json\n" + b + "\n",
			[]string{"rec a", "line 2: not a journal record: invalid character 'o' in literal null (expecting 'u')", "rec b"}},
		{"a record glued to a torn one is malformed, not torn", a[:40] + b + "\n",
			[]string{"line 1: not a journal record: invalid character 'v' after object key"}},
		{"two records on one line", a + b + "\n",
			[]string{"line 1: not a journal record: invalid character '{' after top-level value"}},
		{"no version", `{"call_id":"x"}` + "\n", []string{`line 1: not a journal record: it has no format version ("v")`}},
		{"a newer version", `{"v":4,"ask_id":"x"}` + "\n", []string{"line 1: record format version 4 is not one this reader knows (1 to 3)"}},
		{"not an object", "[1,2]\n" + a + "\n",
			[]string{"line 1: not a journal record: json: cannot unmarshal array into Go value of type journal.Record", "rec a"}},
		{"a field of the wrong type", `{"v":2,"ask_id":7}` + "\n",
			[]string{"line 1: not a journal record: json: cannot unmarshal number into Go struct field Record.ask_id of type string"}},
		{"a first-format field of the wrong type", `{"v":1,"call_id":7}` + "\n",
			[]string{"line 1: not a journal record: json: cannot unmarshal number into Go struct field .call_id of type string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summary(tt.in)); diff != "" {
				t.Errorf("Read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeOlderVersions: a record of an older format is read as the
// current one: version 1's call_id and decisions, and versions 1 and 2's
// per-answer "source", of which "draft" is now Draft.
func TestDecodeOlderVersions(t *testing.T) {
	answers := `"answers":[{"question_id":"env","selected":["prod"],"answered_by":"user","source":"person"},` +
		`{"question_id":"regions","selected":["us"],"answered_by":"timeout","source":"draft"},` +
		`{"question_id":"size","selected":["s"],"answered_by":"timeout","source":"default"}]`
	want := []askuser.FinalAnswer{
		{QuestionID: "env", Selected: []string{"prod"}, By: askuser.ByUser},
		{QuestionID: "regions", Selected: []string{"us"}, By: askuser.ByTimeout, Draft: true},
		{QuestionID: "size", Selected: []string{"s"}, By: askuser.ByTimeout},
	}
	for _, tt := range []struct{ name, in string }{
		{"version 1", `{"v":1,"call_id":"a","session":"s","decisions":[1],` + answers + `}`},
		{"version 2", `{"v":2,"ask_id":"a","session":"s","contract_record":[1],` + answers + `}`},
		{"version 3", `{"v":3,"ask_id":"a","session":"s","contract_record":[1],"answers":[` +
			`{"question_id":"env","selected":["prod"],"answered_by":"user"},` +
			`{"question_id":"regions","selected":["us"],"answered_by":"timeout","draft":true},` +
			`{"question_id":"size","selected":["s"],"answered_by":"timeout"}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := journal.Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Version != journal.RecordVersion || rec.AskID != "a" || string(rec.ContractRecord) != "[1]" {
				t.Errorf("Decode = version %d, ask %q, contract record %s; want version %d, ask \"a\", [1]", rec.Version, rec.AskID, rec.ContractRecord, journal.RecordVersion)
			}
			if diff := cmp.Diff(want, rec.Answers); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLongLine(t *testing.T) {
	long := `{"v":1,"call_id":"` + strings.Repeat("x", journal.MaxLineBytes) + `"}`
	want := []string{fmt.Sprintf("line 1: the line is longer than %d bytes", journal.MaxLineBytes), "rec a"}
	if diff := cmp.Diff(want, summary(long+"\n"+line(t, record("a"))+"\n")); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestReadStopsAtReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(line(t, record("a"))+"\n"+`{"v":1,`), iotest.ErrReader(boom))
	var got []string
	for rec, err := range journal.Read(r) {
		if err != nil {
			if !errors.Is(err, boom) {
				t.Errorf("the error %v does not wrap the reader's", err)
			}
			got = append(got, "err: "+err.Error())
			continue
		}
		got = append(got, "rec "+rec.AskID)
	}
	want := []string{"rec a", "err: journal: reading line 2: boom"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestReadFileMissing(t *testing.T) {
	var errs []error
	for _, err := range journal.ReadFile(t.TempDir() + "/none.jsonl") {
		errs = append(errs, err)
	}
	if len(errs) != 1 || errs[0] == nil {
		t.Fatalf("ReadFile of a missing file yielded %v, want one error", errs)
	}
}

func TestReadStopsWhenAsked(t *testing.T) {
	in := line(t, record("a")) + "\nbad\n" + line(t, record("b")) + "\n"
	n := 0
	for range journal.Read(strings.NewReader(in)) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("the loop ran %d times after break, want 1", n)
	}
}
