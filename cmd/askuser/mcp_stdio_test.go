package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser/journal"
)

// The protocol revisions the command is tested on: one that elicits from
// within the tool call, and the multi round-trip one.
var mcpGenerations = []string{"2025-11-25", "2026-07-28"}

const mcpDeployCall = `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
	{"label":"staging","description":"Safe to break","default":true},
	{"label":"production","description":"Real users"}]}],"timeout_seconds":60}`

const mcpSecretCall = `{"questions":[{"kind":"secret","id":"token","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":60}`

// elicitations records what a client is shown and answers with reply.
type elicitations struct {
	mu    sync.Mutex
	seen  []*mcp.ElicitParams
	reply func(n int, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

func (e *elicitations) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	e.seen = append(e.seen, req.Params)
	n := len(e.seen)
	e.mu.Unlock()
	return e.reply(n, req.Params)
}

func (e *elicitations) shown() []*mcp.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), e.seen...)
}

// stdioClient starts `askuser mcp args…` and connects a client of the
// SDK's own to it over its standard input and output.
func stdioClient(t *testing.T, bin, version string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	var stderr mcpStderr
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("askuser mcp's standard error:\n%s", stderr.String())
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to askuser mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("the client speaks %s with askuser mcp; want %s", got, version)
	}
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

// resultJSON checks that a result is the same JSON as text and as
// structured content, and compares it with want.
func resultJSON(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	var txt strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			txt.WriteString(tc.Text)
		}
	}
	var fromText, structured, w any
	if err := json.Unmarshal([]byte(txt.String()), &fromText); err != nil {
		t.Fatalf("the text is not JSON: %v\n%s", err, txt.String())
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &structured); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, structured); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(structured, fromText); diff != "" {
		t.Errorf("text and structured content differ (-structured +text):\n%s", diff)
	}
}

// TestMCPStdio drives the built command over a real stdio subprocess with
// the SDK's own client, on both protocol generations: the person accepts,
// declines, cancels, sends what does not match (and is asked again), lets
// the deadline pass while the form is shown; a secret is never put in a
// form; a client without elicitation is answered by the unattended rules.
func TestMCPStdio(t *testing.T) {
	bin := buildAskuser(t)
	for _, v := range mcpGenerations {
		t.Run(v+"/accept", func(t *testing.T) {
			e := &elicitations{reply: func(int, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
			}}
			jf := filepath.Join(t.TempDir(), "journal.jsonl")
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle}, "--journal", jf, "--session", "tests")
			resultJSON(t, callTool(t, cs, "ask_user", mcpDeployCall),
				`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
			cs.Close()
			recs := readJournal(t, jf)
			if len(recs) != 1 || recs[0].AnsweredBy != "user" || recs[0].Session != "tests" || recs[0].Responder != "mcp" {
				t.Errorf("journal %+v; want one record answered by the user in session tests", recs)
			}
		})
		for action, want := range map[string]string{
			"decline": `{"status":"declined","answered_by":"user","answers":[]}`,
			"cancel":  `{"status":"cancelled","answered_by":"user","answers":[]}`,
		} {
			t.Run(v+"/"+action, func(t *testing.T) {
				e := &elicitations{reply: func(int, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: action}, nil
				}}
				cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle})
				resultJSON(t, callTool(t, cs, "ask_user", mcpDeployCall), want)
			})
		}
		t.Run(v+"/mismatch asked again", func(t *testing.T) {
			e := &elicitations{reply: func(n int, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				if n == 1 { // free text that looks like a credential: refused
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env_other": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
			}}
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle})
			resultJSON(t, callTool(t, cs, "ask_user", mcpDeployCall),
				`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
			shown := e.shown()
			if len(shown) != 2 || !strings.Contains(shown[1].Message, "looks like a GitHub token") {
				t.Errorf("%d forms; want 2, the second saying why the first answer was refused", len(shown))
			}
		})
		t.Run(v+"/deadline while the form is shown", func(t *testing.T) {
			// The person is still looking at the form when the 1-second
			// deadline passes, and answers half a second later: the
			// deadline wins, whichever way the late answer comes back
			// (a reply to a cancelled request, or a retry).
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(1500 * time.Millisecond):
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
				}
			}})
			resultJSON(t, callTool(t, cs, "ask_user", strings.Replace(mcpDeployCall, `"timeout_seconds":60`, `"timeout_seconds":1`, 1)),
				`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
		})
		t.Run(v+"/secret without a card", func(t *testing.T) {
			e := &elicitations{reply: func(int, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"token": "typed"}}, nil
			}}
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle,
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}})
			resultJSON(t, callTool(t, cs, "ask_user", mcpSecretCall), `{"status":"declined","answered_by":"unattended","answers":[]}`)
			if n := len(e.shown()); n != 0 {
				t.Errorf("the client was shown %d elicitations for a secret; want none", n)
			}
		})
		t.Run(v+"/secret on the card", func(t *testing.T) {
			const typed = "tok-Typed-On-The-Card-991"
			done := make(chan error, 1)
			e := &elicitations{reply: func(_ int, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				if p.Mode != "url" {
					done <- fmt.Errorf("a %q elicitation for a secret; want a link", p.Mode)
					return &mcp.ElicitResult{Action: "cancel"}, nil
				}
				done <- answerOnCard(p.URL, p.Message, typed, "card-"+v)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle,
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}},
				"--card", "127.0.0.1:0", "--session", "card-"+v)
			res := callTool(t, cs, "ask_user", mcpSecretCall)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			resultJSON(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"token","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}`)
			for _, p := range e.shown() {
				if p.RequestedSchema != nil || strings.Contains(p.URL, "?") {
					t.Errorf("elicitation %+v: a secret goes to the card through a link that carries nothing", p)
				}
			}
			// The secret is in the default store, for secret exec.
			code, out, errs := cli(t, "", "secret", "exec", "--session", "card-"+v, "--env", "T=session:DEPLOY_TOKEN", "--", "sh", "-c", `printf %s "$T"`)
			if code != 0 || out != typed {
				t.Errorf("secret exec: exit %d, %q, stderr %q; want the typed secret", code, out, errs)
			}
		})
		t.Run(v+"/no elicitation", func(t *testing.T) {
			cs := stdioClient(t, bin, v, nil)
			resultJSON(t, callTool(t, cs, "ask_user", mcpDeployCall),
				`{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
		})
		t.Run(v+"/pi contract", func(t *testing.T) {
			e := &elicitations{reply: func(_ int, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				// Pick each choice's last option, whatever the property's name.
				var s struct {
					Properties map[string]struct {
						OneOf []struct {
							Const string `json:"const"`
						} `json:"oneOf"`
					} `json:"properties"`
				}
				data, _ := json.Marshal(p.RequestedSchema)
				_ = json.Unmarshal(data, &s)
				content := map[string]any{}
				for name, prop := range s.Properties {
					if n := len(prop.OneOf); n > 0 {
						content[name] = prop.OneOf[n-1].Const
					}
				}
				return &mcp.ElicitResult{Action: "accept", Content: content}, nil
			}}
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle}, "--dialect", "pi")
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 2 || tools.Tools[0].OutputSchema == nil || tools.Tools[1].Name != "request_approval" {
				t.Fatalf("tools %+v, %v; want pi's tool with its output schema, and request_approval", tools, err)
			}
			// pi's results are tool results of their own: its text is the
			// content, the whole of it the structured content, and its
			// isError the result's — for an answer (false) and for an
			// invalid call (true).
			for call, wantError := range map[string]bool{
				`{"question":"Pick one?","kind":"select","options":["a","b"]}`: false,
				`{"question":"Pick one?","options":["a","b"]}`:                 true,
			} {
				res := callTool(t, cs, tools.Tools[0].Name, call)
				var own struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					Details map[string]any `json:"details"`
					IsError bool           `json:"isError"`
				}
				data, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(data, &own); err != nil || len(own.Content) != 1 || own.Details == nil {
					t.Fatalf("%s: structured content %s; want pi's result with its details", call, data)
				}
				if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != own.Content[0].Text || res.IsError != wantError || own.IsError != wantError {
					t.Errorf("%s: result %s (isError %v); want pi's text as the content and isError %v", call, data, res.IsError, wantError)
				}
			}
			if n := len(e.shown()); n != 1 {
				t.Errorf("%d forms; want 1 (for the valid call)", n)
			}
		})
	}
}

func readJournal(t *testing.T, name string) []struct {
	Session, AnsweredBy, Responder string
} {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []struct{ Session, AnsweredBy, Responder string }
	for rec, err := range journal.Read(f) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, struct{ Session, AnsweredBy, Responder string }{rec.Session, string(rec.AnsweredBy), rec.Responder})
	}
	return out
}

var cardCode = regexp.MustCompile(`\b[A-Z2-9]{4}-[A-Z2-9]{4}\b`)

// answerOnCard plays the person on the command's card: opens the link,
// types the code the message shows, and enters the secret.
func answerOnCard(link, message, value, session string) error {
	u, err := url.Parse(link)
	if err != nil {
		return err
	}
	base := u.Scheme + "://" + u.Host
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	code := cardCode.FindString(message)
	if code == "" {
		return fmt.Errorf("no code in the message %q", message)
	}
	res, err := hc.PostForm(base+"/code", url.Values{"code": {code}, "next": {u.Path}})
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK { // followed the redirect to the card page
		return fmt.Errorf("the code: %s", res.Status)
	}
	res, err = hc.Get(base + "/api/sessions/" + url.PathEscape(session) + "/asks")
	if err != nil {
		return err
	}
	var list struct {
		CSRF string `json:"csrf_token"`
		Asks []struct {
			ID string `json:"id"`
		} `json:"asks"`
	}
	err = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if err != nil || len(list.Asks) != 1 {
		return fmt.Errorf("the session's asks: %v, %d asks", err, len(list.Asks))
	}
	id := list.Asks[0].ID
	for _, step := range []struct{ method, path, body string }{
		{"PUT", "/api/asks/" + id + "/answers/token", `{"secret":"` + value + `"}`},
		{"POST", "/api/asks/" + id + "/submit", `{}`},
	} {
		req, _ := http.NewRequest(step.method, base+step.path, strings.NewReader(step.body))
		req.Header.Set("X-CSRF-Token", list.CSRF)
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %s %s", step.method, step.path, res.Status, b)
		}
	}
	return nil
}

// mcpStderr is a command's standard error, written by the process's
// copier while a test may read it.
type mcpStderr struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *mcpStderr) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *mcpStderr) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const (
	mcpRestartCall = `{"action":"Restart the login service","reason":"It holds a stale certificate","risk":"medium","timeout_seconds":60}`
	mcpDeleteCall  = `{"action":"Delete the bucket logs-2019","reason":"It is past its retention","risk":"irreversible","details":"gsutil rm -r gs://logs-2019","timeout_seconds":60}`
)

// approvalVerdict reads a request_approval result (text and structured
// content the same JSON) without its message and digest, which it must
// carry.
func approvalVerdict(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var txt strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			txt.WriteString(tc.Text)
		}
	}
	var fromText, structured map[string]any
	if err := json.Unmarshal([]byte(txt.String()), &fromText); err != nil {
		t.Fatalf("the text is not JSON: %v\n%s", err, txt.String())
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &structured); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(structured, fromText); diff != "" {
		t.Errorf("text and structured content differ (-structured +text):\n%s", diff)
	}
	if structured["message"] == nil || !strings.HasPrefix(fmt.Sprint(structured["action_digest"]), "sha256:") {
		t.Errorf("the result %s has no message or no action digest", data)
	}
	delete(structured, "message")
	delete(structured, "action_digest")
	return structured
}

func wantApproval(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, approvalVerdict(t, res)); diff != "" {
		t.Errorf("request_approval's result (-want +got):\n%s", diff)
	}
}

func accepting(content map[string]any) *elicitations {
	return &elicitations{reply: func(int, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}}
}

// TestMCPStdioApproval drives request_approval, which askuser mcp serves
// beside ask_user, over a real stdio subprocess with the SDK's own
// client, on both protocol generations: tools/list shows both tools; the
// person approves once, approves for the session (kept in --consents
// across a restart, so that the same request to a new server is approved
// without a form), denies, declines, cancels; an irreversible action
// needs "approve" typed; the deadline while the form is shown decides
// nothing; a client without elicitation gets unresolved at once.
func TestMCPStdioApproval(t *testing.T) {
	bin := buildAskuser(t)
	for _, v := range mcpGenerations {
		t.Run(v+"/tools", func(t *testing.T) {
			for _, c := range []struct {
				args []string
				want []string
			}{
				{nil, []string{"ask_user", "request_approval"}},
				{[]string{"--dialect", "pi"}, []string{"ask", "request_approval"}},
				{[]string{"--no-approval"}, []string{"ask_user"}},
				{[]string{"--dialect", "request_approval"}, []string{"request_approval"}},
			} {
				cs := stdioClient(t, bin, v, nil, c.args...)
				list, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tl := range list.Tools {
					names = append(names, tl.Name)
					if tl.OutputSchema == nil || tl.InputSchema == nil || tl.Description == "" {
						t.Errorf("%v: %s has no input or output schema or description", c.args, tl.Name)
					}
				}
				if diff := cmp.Diff(c.want, names); diff != "" {
					t.Errorf("%v: tools (-want +got):\n%s", c.args, diff)
				}
			}
		})
		for _, c := range []struct {
			name  string
			reply *mcp.ElicitResult
			want  string
		}{
			{"approve", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "note": "go ahead"}},
				`{"status":"approved","decided_by":"user","note":"go ahead","ended":null}`},
			{"deny", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}},
				`{"status":"denied","decided_by":"user","note":null,"ended":null}`},
			{"decline", &mcp.ElicitResult{Action: "decline"}, `{"status":"denied","decided_by":"user","note":null,"ended":null}`},
			{"cancel", &mcp.ElicitResult{Action: "cancel"}, `{"status":"unresolved","decided_by":null,"note":null,"ended":"dismissed"}`},
		} {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				e := &elicitations{reply: func(int, *mcp.ElicitParams) (*mcp.ElicitResult, error) { return c.reply, nil }}
				jf := filepath.Join(t.TempDir(), "journal.jsonl")
				cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle}, "--journal", jf)
				wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall), c.want)
				cs.Close()
				shown := e.shown()
				if len(shown) != 1 || !strings.Contains(shown[0].Message, "Action: Restart the login service") {
					t.Errorf("%d forms; want 1 saying the action", len(shown))
				}
				if recs := readJournal(t, jf); len(recs) != 1 || recs[0].Responder != "mcp" || recs[0].Session != "mcp" {
					t.Errorf("journal %+v; want one record of the mcp responder in session mcp", recs)
				}
			})
		}
		t.Run(v+"/for the session, across a restart", func(t *testing.T) {
			consents := filepath.Join(t.TempDir(), "consents.jsonl")
			e := accepting(map[string]any{"approve": true, "remember": true})
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle}, "--consents", consents, "--session", "work")
			wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall),
				`{"status":"approved","decided_by":"user","note":null,"ended":null,"remember":"session"}`)
			cs.Close()

			e2 := accepting(map[string]any{"approve": false})
			cs = stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e2.handle}, "--consents", consents, "--session", "work")
			got := approvalVerdict(t, callTool(t, cs, "request_approval", mcpRestartCall))
			if got["status"] != "approved" || got["decided_by"] != "remembered" || got["remembered_from"] == nil {
				t.Errorf("the same request after a restart: %v; want approved, remembered", got)
			}
			if n := len(e2.shown()); n != 0 {
				t.Errorf("the remembered approval showed %d forms; want none", n)
			}
			// Another session does not share the decision.
			cs.Close()
			cs = stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e2.handle}, "--consents", consents, "--session", "other")
			wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall), `{"status":"denied","decided_by":"user","note":null,"ended":null}`)
		})
		t.Run(v+"/irreversible", func(t *testing.T) {
			e := &elicitations{reply: func(n int, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				if n == 1 {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": "yes"}}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": "approve"}}, nil
			}}
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: e.handle})
			wantApproval(t, callTool(t, cs, "request_approval", mcpDeleteCall), `{"status":"approved","decided_by":"user","note":null,"ended":null}`)
			shown := e.shown()
			if len(shown) != 2 || !strings.Contains(shown[0].Message, "IRREVERSIBLE") || !strings.Contains(shown[1].Message, "type approve") {
				t.Errorf("%d forms; want 2, the first saying the action cannot be undone, the second that approve must be typed", len(shown))
			}
		})
		t.Run(v+"/deadline while the form is shown", func(t *testing.T) {
			cs := stdioClient(t, bin, v, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(1500 * time.Millisecond):
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}
			}})
			wantApproval(t, callTool(t, cs, "request_approval", strings.Replace(mcpRestartCall, `"timeout_seconds":60`, `"timeout_seconds":1`, 1)),
				`{"status":"unresolved","decided_by":null,"note":null,"ended":"deadline"}`)
		})
		t.Run(v+"/no elicitation", func(t *testing.T) {
			cs := stdioClient(t, bin, v, nil)
			wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall), `{"status":"unresolved","decided_by":null,"note":null,"ended":"unattended"}`)
		})
	}
}
