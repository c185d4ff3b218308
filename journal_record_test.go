package askuser_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/store"
)

// recordingJournal keeps the records it is given.
type recordingJournal struct {
	mu   sync.Mutex
	recs []*journal.Record
}

func (j *recordingJournal) Append(_ context.Context, sr store.Record) error {
	rec, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.recs = append(j.recs, rec)
	return nil
}

// TestJournalRecordOmitsEmptyFields: the record of a secret question, as a
// journal writes it (encoding/json), has no empty "options" or "selected";
// an answer that selected something keeps "selected".
func TestJournalRecordOmitsEmptyFields(t *testing.T) {
	tests := []struct {
		name string
		call string
		ans  askuser.Answer
		want string
	}{
		{
			name: "secret",
			call: secretCall,
			ans:  askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("a-sealed-value")},
			want: `{"v":3,"ask_id":"ASK","session":"s1","tool_call_id":"call-1","contract":"ask_user","responder":"askuser.ResponderFunc",` +
				`"questions":[{"id":"question_1","kind":"secret","header":"Token","question":"Paste a GitHub token","secret_name":"GITHUB_TOKEN","purpose":"to open the pull request","multi_select":false,"allow_other":false}],` +
				`"status":"answered","answered_by":"user","reason":"submitted",` +
				`"answers":[{"question_id":"question_1","secret_ref":"session:GITHUB_TOKEN","answered_by":"user"}],` +
				`"asked_at":"2000-01-01T00:00:00Z","expires_at":"2000-01-01T00:05:00Z","finalized_at":"2000-01-01T00:00:00Z",` +
				`"result":{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:GITHUB_TOKEN"}]}}`,
		},
		{
			name: "choice",
			call: `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe"},{"label":"production","description":"Real"}]}]}`,
			ans:  askuser.Answer{QuestionID: "env", Selected: []string{"production"}},
			want: `{"v":3,"ask_id":"ASK","session":"s1","tool_call_id":"call-1","contract":"ask_user","responder":"askuser.ResponderFunc",` +
				`"questions":[{"id":"env","kind":"choice","header":"Env","question":"Which environment?","options":[{"value":"staging","label":"staging","description":"Safe","default":false},{"value":"production","label":"production","description":"Real","default":false}],"multi_select":false,"allow_other":true}],` +
				`"status":"answered","answered_by":"user","reason":"submitted",` +
				`"answers":[{"question_id":"env","selected":["production"],"answered_by":"user"}],` +
				`"asked_at":"2000-01-01T00:00:00Z","expires_at":"2000-01-01T00:05:00Z","finalized_at":"2000-01-01T00:00:00Z",` +
				`"result":{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}}`,
		},
		{
			name: "human intent",
			call: `{"human_intent":"Deploying the login fix","questions":[{"kind":"text","header":"Why","question":"Why now?"}]}`,
			ans:  askuser.Answer{QuestionID: "question_1", Other: "hotfix"},
			want: `{"v":3,"ask_id":"ASK","session":"s1","tool_call_id":"call-1","contract":"ask_user","responder":"askuser.ResponderFunc",` +
				`"human_intent":"Deploying the login fix",` +
				`"questions":[{"id":"question_1","kind":"text","header":"Why","question":"Why now?","multi_select":false,"allow_other":true}],` +
				`"status":"answered","answered_by":"user","reason":"submitted",` +
				`"answers":[{"question_id":"question_1","other":"hotfix","answered_by":"user"}],` +
				`"asked_at":"2000-01-01T00:00:00Z","expires_at":"2000-01-01T00:05:00Z","finalized_at":"2000-01-01T00:00:00Z",` +
				`"result":{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":"hotfix"}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				j := &recordingJournal{}
				o := &askuser.Orchestrator{Journal: j, Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
					if err := a.Report(tt.ans); err != nil {
						return err
					}
					return a.Submit()
				})}
				out, err := handle(t, o, tt.call)
				if err != nil {
					t.Fatal(err)
				}
				if len(j.recs) != 1 {
					t.Fatalf("%d records, want 1", len(j.recs))
				}
				rec := *j.recs[0]
				if rec.AskID != out.AskID {
					t.Errorf("record of ask %s, want %s", rec.AskID, out.AskID)
				}
				rec.AskID = "ASK"
				got, err := json.Marshal(&rec)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, string(got)); diff != "" {
					t.Errorf("record (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestRecordInStepWithJournal: the record this package writes and the
// journal.Record that readers decode it into have the same members, in
// the same order, with the same JSON names and types (the reader's Auth
// aside, which a journal writes itself), and so do their quorums.
func TestRecordInStepWithJournal(t *testing.T) {
	type member struct{ Name, Tag, Type string }
	members := func(rt reflect.Type) []member {
		var ms []member
		for f := range rt.Fields() {
			if f.Name == "Auth" {
				continue
			}
			typ := f.Type.String()
			typ = strings.NewReplacer("askuser.recordQuorum", "Quorum", "journal.RecordQuorum", "Quorum").Replace(typ)
			ms = append(ms, member{f.Name, string(f.Tag), typ})
		}
		return ms
	}
	for i, want := range []reflect.Type{reflect.TypeFor[journal.Record](), reflect.TypeFor[journal.RecordQuorum]()} {
		got := askuser.RecordTypes[i]
		if diff := cmp.Diff(members(want), members(got)); diff != "" {
			t.Errorf("%v and %v differ (-journal +askuser):\n%s", want, got, diff)
		}
	}
	if _, ok := reflect.TypeFor[journal.Record]().FieldByName("Auth"); !ok {
		t.Error("journal.Record has no Auth")
	}
}
