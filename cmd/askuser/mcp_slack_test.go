package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

// TestMCPBridgeSlack: askuser mcp --bridge-to slack, with ask's --slack-*
// flags, against the Slack fake on loopback: a call the person does not
// answer in the client (2025-11-25, which elicits from within the call)
// is handed on to Slack at --bridge-timeout; the call's result says it
// went to the channel; a click on the Slack message answers the ask, and
// the journal has one record of it, answered by the person. (The bridge's
// time itself is tested in synctest in responders/mcp; here it is only
// how long the client is given.)
func TestMCPBridgeSlack(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	jf := filepath.Join(dir, "journal.jsonl")
	args := append([]string{"mcp", "--journal", jf, "--bridge-to", "slack", "--bridge-timeout", "300ms", "--slack-listen", "127.0.0.1:0"}, slackArgs(t, fake, dir)...)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, args, inR, outW, &stderr)
		outW.Close()
	}()
	// The person never answers the form in the client.
	waiting := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, waiting)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cancel()
		t.Fatalf("connecting: %v; askuser mcp said:\n%s", err, stderr.String())
	}
	defer func() {
		cs.Close()
		inW.Close()
		cancel()
		if code := <-exited; code != exitOK {
			t.Errorf("askuser mcp exited %d; want 0 (stderr %s)", code, stderr.String())
		}
	}()

	res := callTool(t, cs, "ask_user", mcpDeployCall)
	txt := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			txt += tc.Text
		}
	}
	if res.IsError || !strings.Contains(txt, "went on to the Slack channel C1") {
		t.Errorf("the call's result: isError %v, %q; want where the ask went, the Slack channel", res.IsError, txt)
	}
	var meta struct {
		AskID string `json:"askId"`
		Where string `json:"where"`
	}
	data, _ := json.Marshal(res.Meta["askuser/bridged"])
	if err := json.Unmarshal(data, &meta); err != nil || meta.AskID == "" || meta.Where != "the Slack channel C1" {
		t.Fatalf("the result's _meta: %s; want askuser/bridged with the ask and the channel", data)
	}

	posted := nextCall(t, fake.Posted, "chat.postMessage")
	if ch := posted.Form.Get("channel"); ch != "C1" {
		t.Errorf("posted to %q; want C1", ch)
	}
	m := interactivityLine.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("askuser mcp does not say where it serves Slack's endpoint: %s", stderr.String())
	}
	pick := slacktest.Buttons(posted)["askuser_pick"]
	if len(pick) != 2 {
		t.Fatalf("buttons %v; want one per option", slacktest.Buttons(posted))
	}
	if c := send(t, m[1], slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[1]), slacktest.SigningSecret); c != http.StatusOK {
		t.Fatalf("the click: %d", c)
	}

	// The journal has the ask once the click has ended it.
	var recs []*journal.Record
	for deadline := time.Now().Add(serveWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if recs = journalRecords(t, jf); len(recs) > 0 {
			break
		}
	}
	if len(recs) != 1 {
		t.Fatalf("%d journal records; want one", len(recs))
	}
	r := recs[0]
	if r.AskID != meta.AskID || r.Status != askuser.StatusAnswered || r.AnsweredBy != askuser.ByUser ||
		len(r.Answers) != 1 || strings.Join(r.Answers[0].Selected, ",") != "production" {
		t.Errorf("journal record %+v; want ask %s answered production by the person", r, meta.AskID)
	}
	select {
	case up := <-fake.Updated:
		if strings.Contains(up.Form.Get("blocks"), `"actions"`) {
			t.Errorf("the answered ask's message keeps its buttons: %s", up.Form.Get("blocks"))
		}
	case <-time.After(serveWait):
		t.Error("the answered ask's message was not edited: its buttons stay live")
	}
}

// journalRecords reads the journal file; a file not made yet has none.
func journalRecords(t *testing.T, name string) []*journal.Record {
	t.Helper()
	f, err := os.Open(name)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*journal.Record
	for rec, err := range journal.Read(f) {
		if err != nil {
			return nil // a record being written
		}
		out = append(out, rec)
	}
	return out
}

// TestMCPBridgeSlackFlags: the --slack-* flags go with --bridge-to slack,
// and --bridge-to slack needs them, and a way for Slack's clicks to come in.
func TestMCPBridgeSlackFlags(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"mcp"}, slackArgs(t, fake, dir)...), "the --slack-* flags configure --bridge-to slack"},
		{[]string{"mcp", "--slack-listen", "127.0.0.1:0"}, "the --slack-* flags configure --bridge-to slack"},
		{[]string{"mcp", "--bridge-to", "slack"}, "--slack-bot-token-file FILE is required"},
		{append([]string{"mcp", "--bridge-to", "slack"}, slackArgs(t, fake, dir)...), "--bridge-to slack needs --slack-listen ADDR"},
		{append([]string{"mcp", "--bridge-to", "slack", "--slack-listen", "127.0.0.1:0", "--slack-app-token-file", "x"}, slackArgs(t, fake, dir)...), "Socket Mode (--slack-app-token-file) does without"},
		{[]string{"mcp", "--bridge-to", "email"}, `--bridge-to "email": the ask can go on to card (the --card web card) or slack`},
	} {
		code, _, errs := cli(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}
