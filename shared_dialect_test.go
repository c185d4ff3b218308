package askuser_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/pi"
)

// TestSharedDialectDataOnAnotherReplica: a contract that keeps data of its
// own in the form (pi's rich call) has it on every replica's handle, as on
// the one that began the ask, and the person's answer on another replica
// comes back in that contract's encoding. A call in ask_user, which keeps
// none, is stored without a copy of its arguments.
func TestSharedDialectDataOnAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		for _, o := range f.orch {
			o.Dialects = []askuser.Dialect{pi.Dialect()}
		}
		rich := `{"question":"Ship it?","kind":"select","options":["yes","no"],"default":"yes","timeoutMs":60000}`
		ctx := context.Background()
		onA := make(chan askuser.Outcome, 1)
		go func() {
			out, err := f.orch[0].Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "call-pi", Dialect: pi.Dialect(), Arguments: []byte(rich)})
			if err != nil {
				t.Error(err)
				close(onA)
				return
			}
			onA <- *out
		}()
		a, b := f.asked(t, 0), f.asked(t, 1)
		if a.Form().DialectData == nil {
			t.Fatal("the pi call's form has no contract data on the replica that began it")
		}
		if !reflect.DeepEqual(b.Form().DialectData, a.Form().DialectData) {
			t.Fatalf("the other replica's form carries %#v, want %#v", b.Form().DialectData, a.Form().DialectData)
		}
		if err := b.Report(askuser.Answer{QuestionID: b.Form().Questions[0].ID, Selected: []string{"no"}}); err != nil {
			t.Fatal(err)
		}
		if err := b.Submit(); err != nil {
			t.Fatal(err)
		}
		out, ok := <-onA
		if !ok {
			return
		}
		// The single-question pi result, answered on B, as the same call
		// answered on one replica gives it.
		one := &askuser.Orchestrator{Journal: &approvalJournal{}, Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			if err := a.Report(askuser.Answer{QuestionID: a.Form().Questions[0].ID, Selected: []string{"no"}}); err != nil {
				return err
			}
			return a.Submit()
		})}
		defer one.Close()
		want, err := one.Handle(ctx, askuser.Request{Session: "s9", ToolCallID: "call-pi", Dialect: pi.Dialect(), Arguments: []byte(rich)})
		if err != nil {
			t.Fatal(err)
		}
		if string(out.Result) != string(want.Result) {
			t.Errorf("answered on another replica, the pi call's result is %s, want %s", out.Result, want.Result)
		}

		res := f.handle(ctx, 0, "s2", "call-ask", choiceCall)
		answerChoice(t, f.asked(t, 1))
		f.asked(t, 0)
		if r := <-res; r.err != nil {
			t.Fatal(r.err)
		}
		entries, err := f.store.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			var rec struct {
				ToolCallID string          `json:"tool_call_id"`
				Arguments  json.RawMessage `json:"arguments"`
			}
			if json.Unmarshal(e.Data, &rec) != nil {
				continue
			}
			seen[rec.ToolCallID] = len(rec.Arguments) > 0
		}
		if got, ok := seen["call-pi"]; !ok || !got {
			t.Errorf("the pi ask's record (found: %v) does not keep its call's arguments", ok)
		}
		if got, ok := seen["call-ask"]; !ok || got {
			t.Errorf("the ask_user ask's record (found: %v) keeps a copy of its call's arguments, which nothing reads", ok)
		}
	})
}
