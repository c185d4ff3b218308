package natsstore

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/scripted"
)

// TestOutcomeTableOnJetStream drives the rows of the outcome table
// (docs/ask_user.md; the root package's TestOutcomeTable, in memory and on
// a MemoryPending) through an orchestrator whose pending asks live in
// JetStream: every report and ending a compare-and-set on the bucket, the
// outcome built from the stored record and journaled in the stream. The
// deadline rows wait out a one-second deadline in real time.
func TestOutcomeTableOnJetStream(t *testing.T) {
	js := single(t)
	s := open(t, js, Config{Keys: fleetKeys})
	const choice = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break"},
   {"label":"production","description":"Real users","default":true}]},
 {"id":"region","header":"Region","question":"Which regions?","multi_select":true,"options":[
   {"label":"eu","description":"Europe"},
   {"label":"us","description":"America"},
   {"label":"ap","description":"Asia"}]}],
 "timeout_seconds":%d}`
	const mixed = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break","default":true},
   {"label":"production","description":"Real users"}]},
 {"id":"branch","kind":"text","header":"Branch","question":"Which branch name?"}],
 "timeout_seconds":%d}`
	pick := func(id string, v ...string) *askuser.Answer { return &askuser.Answer{QuestionID: id, Selected: v} }
	tests := []struct {
		name   string
		call   string
		script []scripted.Step
		nobody bool
		want   string
		reason askuser.Reason
	}{
		{"the person submits", choice, []scripted.Step{{Answer: pick("env", "staging")}, {Answer: pick("region", "us", "eu")}, {End: scripted.EndSubmit}}, false,
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["eu","us"],"other_text":null}]}`, askuser.ReasonSubmitted},
		{"the person declines the call", choice, []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndDecline}}, false,
			`{"status":"declined","answered_by":"user","answers":[]}`, askuser.ReasonDeclined},
		{"the person dismisses the card", choice, []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndCancel}}, false,
			`{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`, askuser.ReasonDismissed},
		{"the deadline passes; every unanswered question is a choice", choice, []scripted.Step{{Answer: pick("region", "ap")}}, false,
			`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["ap"],"other_text":null,"answered_by":"user"}]}`, askuser.ReasonDeadline},
		{"the deadline passes; an unanswered question is text", mixed, []scripted.Step{{Answer: pick("env", "production")}}, false,
			`{"status":"declined","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null,"answered_by":"user"}]}`, askuser.ReasonDeadline},
		{"nobody can be asked; every question is a choice", choice, nil, true,
			`{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`, askuser.ReasonUnattended},
		{"nobody can be asked; a question is text", mixed, nil, true,
			`{"status":"declined","answered_by":"unattended","answers":[]}`, askuser.ReasonUnattended},
		{"the responder cannot reach anyone after an answer", mixed, []scripted.Step{{Answer: pick("env", "production")}, {End: scripted.EndUnreachable}}, false,
			`{"status":"declined","answered_by":"unattended","answers":[{"id":"env","selected":["production"],"other_text":null,"answered_by":"user"}]}`, askuser.ReasonUnattended},
		{"the responder returns an error", choice, []scripted.Step{{Answer: pick("env", "staging")}, {Err: errors.New("socket closed")}}, false,
			`{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`, askuser.ReasonFault},
		{"the responder panics", choice, []scripted.Step{{Panic: "boom"}}, false,
			`{"status":"cancelled","answered_by":"unattended","answers":[]}`, askuser.ReasonFault},
		{"the embedding program supersedes the ask", choice, []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndSupersede}}, false,
			`{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`, askuser.ReasonSuperseded},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &askuser.Orchestrator{Asks: s.Asks(), Journal: s.Journal(), Secrets: s.Secrets(), Logger: quiet()}
			defer func() { o.Close(); o.WaitResponders() }()
			if !tt.nobody {
				r := scripted.New(tt.script...)
				r.Supersede = o.Supersede
				o.Responder = r
			}
			timeout := 300
			if tt.reason == askuser.ReasonDeadline {
				timeout = 1
			}
			session, toolCall := fmt.Sprintf("table-%d", i), "call-1"
			out, err := o.Handle(ctxFor(t), askuser.Request{Session: session, ToolCallID: toolCall, Arguments: []byte(fmt.Sprintf(tt.call, timeout))})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(out.Result); got != tt.want {
				t.Errorf("result %s\nwant   %s", got, tt.want)
			}
			if out.Reason != tt.reason {
				t.Errorf("reason %s, want %s", out.Reason, tt.reason)
			}
			if (out.Fault != nil) != (tt.reason == askuser.ReasonFault) {
				t.Errorf("Fault = %v with reason %s", out.Fault, out.Reason)
			}
			recs := journalRecords(t, s, session)
			if len(recs) != 1 || string(recs[0].Result) != tt.want || recs[0].Reason != tt.reason {
				t.Errorf("journal: %d records (%+v); want one with the result", len(recs), recs)
			}
			// The same tool call again replays, on a fresh orchestrator.
			again := &askuser.Orchestrator{Asks: s.Asks(), Logger: quiet()}
			defer func() { again.Close(); again.WaitResponders() }()
			rep, err := again.Handle(context.Background(), askuser.Request{Session: session, ToolCallID: toolCall, Arguments: []byte(fmt.Sprintf(tt.call, timeout))})
			if err != nil || !rep.Replayed || string(rep.Result) != tt.want {
				t.Errorf("retry: %v, %v; want the replayed result", rep, err)
			}
		})
	}
}
