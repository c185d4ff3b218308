package mcpresponder_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/responders/web"
)

// The value the person types on the card.
const typedSecret = "s3cret-Deploy-Value-7781"

// card is a web card served on loopback behind the short-code gate.
type card struct {
	r     *web.Responder
	codes *mcpresponder.Codes
	srv   *httptest.Server
}

func newCard(t *testing.T) *card {
	t.Helper()
	c := &card{codes: &mcpresponder.Codes{CookieName: "askuser_test_code"}}
	c.r = web.New(&web.Options{Logger: quiet, Authorize: c.codes.Authorize})
	c.srv = httptest.NewServer(c.codes.Gate(c.r))
	t.Cleanup(func() {
		c.r.Close()
		c.srv.Close()
	})
	return c
}

func (c *card) options() *mcpresponder.Options {
	return &mcpresponder.Options{
		Card:    c.r,
		CardURL: func(a *askuser.Ask) string { return c.srv.URL + "/" + web.AskPath(a.ID()) },
		Codes:   c.codes,
		Logger:  quiet,
	}
}

var codeRE = regexp.MustCompile(`\b[A-Z2-9]{4}-[A-Z2-9]{4}\b`)

// person opens the link, is sent to the code page, types the code the
// message shows, and enters the secret on the card.
func (c *card) person(link, message string) error {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, u string, body string, hdr map[string]string) (*http.Response, string, error) {
		req, err := http.NewRequest(method, u, strings.NewReader(body))
		if err != nil {
			return nil, "", err
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := hc.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b), nil
	}
	u, err := url.Parse(link)
	if err != nil {
		return err
	}
	askID := strings.TrimPrefix(u.Path, "/asks/")
	// Without a code the card is not shown, and its API refuses.
	res, _, err := do("GET", link, "", map[string]string{"Accept": "text/html"})
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/code?next=") {
		return fmt.Errorf("the card without a code: %d, Location %q; want a redirect to the code page", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _, err = do("GET", c.srv.URL+"/api/sessions/mcp/asks", "", nil); err != nil || res.StatusCode != http.StatusForbidden {
		return fmt.Errorf("the card's API without a code: %v %v; want 403", res.StatusCode, err)
	}
	// A wrong code is refused; the right one admits.
	form := func(code string) string {
		return url.Values{"code": {code}, "next": {u.Path}}.Encode()
	}
	ct := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	if res, _, err = do("POST", c.srv.URL+"/code", form("AAAA-AAAA"), ct); err != nil || res.StatusCode != http.StatusForbidden {
		return fmt.Errorf("a wrong code: %v %v; want 403", res.StatusCode, err)
	}
	code := codeRE.FindString(message)
	if code == "" {
		return fmt.Errorf("the message %q shows no code", message)
	}
	if res, _, err = do("POST", c.srv.URL+"/code", form(strings.ToLower(code)), ct); err != nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != u.Path {
		return fmt.Errorf("the right code: %v %v; want a redirect back to %s", res.StatusCode, err, u.Path)
	}
	res, body, err := do("GET", c.srv.URL+"/api/sessions/mcp/asks", "", nil)
	if err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("the card's API with the code: %v %v", res.StatusCode, err)
	}
	var list struct {
		CSRF string `json:"csrf_token"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		return err
	}
	h := map[string]string{"X-CSRF-Token": list.CSRF, "Content-Type": "application/json"}
	if res, body, err = do("PUT", c.srv.URL+"/api/asks/"+askID+"/answers/token", `{"secret":"`+typedSecret+`"}`, h); err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("the secret: %v %v %s", res.StatusCode, err, body)
	}
	if res, body, err = do("POST", c.srv.URL+"/api/asks/"+askID+"/submit", `{}`, h); err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("submit: %v %v %s", res.StatusCode, err, body)
	}
	return nil
}

// TestSecretThroughCard: a secret question never goes into a form: a
// client that opens links is sent one to the card (carrying no
// credential), with a short code beside it; the person types the code on
// the card, enters the secret there, and the model gets only its
// reference. On every revision.
func TestSecretThroughCard(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			c := newCard(t)
			personDone := make(chan error, 1)
			h, co := answering(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if req.Params.Mode == "url" {
					personDone <- c.person(req.Params.URL, req.Params.Message)
				}
				return &mcp.ElicitResult{Action: "accept"}, nil
			})
			co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
			r := newRig(t, rigOptions{version: v, client: co, responder: c.options()})
			res := r.call(t, secretCall)
			if err := <-personDone; err != nil {
				t.Fatal(err)
			}
			wantResult(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"token","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}`)
			seen := h.seen()
			if len(seen) != 1 {
				t.Fatalf("%d elicitations; want 1", len(seen))
			}
			p := seen[0]
			code := codeRE.FindString(p.Message)
			if p.Mode != "url" || p.RequestedSchema != nil || code == "" || strings.Contains(p.URL, "?") || strings.Contains(p.URL, strings.ReplaceAll(code, "-", "")) {
				t.Errorf("elicitation %s; want a link to the card with no credential in it, and a code in the message", mustJSON(t, p))
			}
			everything := string(mustJSON(t, seen)) + string(mustJSON(t, res)) + string(mustJSON(t, r.journal.records()))
			if strings.Contains(everything, typedSecret) {
				t.Error("the secret appears in an elicitation, the result or the journal")
			}
			got, err := r.o.Secrets.Get(context.Background(), "mcp", "DEPLOY_TOKEN")
			if err != nil || string(got.Reveal()) != typedSecret {
				t.Errorf("the store does not hold the secret the person typed (err %v)", err)
			}
			if recs := r.journal.records(); len(recs) != 1 || recs[0].Principal != "code" {
				t.Errorf("journal %s; want one record whose principal is code", mustJSON(t, recs))
			}
		})
	}
}

// holdingCard is an event-driven card that only records which asks it
// holds. Its Respond is slow to start: it holds the ask only once the
// link has been seen (linkSeen closed), as a goroutine that had not run
// yet would.
type holdingCard struct {
	mu       sync.Mutex
	held     map[string]bool
	linkSeen chan struct{}
}

func (c *holdingCard) Asked(a *askuser.Ask) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = map[string]bool{}
	}
	c.held[a.ID()] = true
}

func (c *holdingCard) Respond(ctx context.Context, a *askuser.Ask) error {
	select {
	case <-c.linkSeen:
	case <-ctx.Done():
	}
	c.Asked(a)
	<-ctx.Done()
	return nil
}

func (c *holdingCard) holds(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[id]
}

// TestCardHoldsTheAskBeforeTheLink: an event-driven card holds the ask
// before the client is sent the link to it, so that a person who opens
// the link at once finds the ask there. (CI once saw the card answer 404
// to a person that quick, when the card was handed the ask on a goroutine
// of its own.)
func TestCardHoldsTheAskBeforeTheLink(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			c := &holdingCard{linkSeen: make(chan struct{})}
			held := make(chan bool, 1)
			h, co := answering(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if req.Params.Mode == "url" {
					held <- c.holds(path.Base(req.Params.URL))
					close(c.linkSeen)
				}
				return &mcp.ElicitResult{Action: "decline"}, nil
			})
			co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
			r := newRig(t, rigOptions{version: v, client: co, responder: &mcpresponder.Options{
				Card:    c,
				CardURL: func(a *askuser.Ask) string { return "http://127.0.0.1:1/" + web.AskPath(a.ID()) },
				Logger:  quiet,
			}})
			wantResult(t, r.call(t, secretCall), `{"status":"declined","answered_by":"user","answers":[]}`)
			if n := len(h.seen()); n != 1 {
				t.Fatalf("%d elicitations; want the link alone", n)
			}
			if !<-held {
				t.Error("the client was sent the link before the card held the ask")
			}
		})
	}
}

// TestSecretClientWithoutLinks: a client that takes forms but not links is
// never sent the secret question: the ask is unattended (declined), even
// with a card configured.
func TestSecretClientWithoutLinks(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			c := newCard(t)
			h, co := answering(reply("accept", map[string]any{"token": typedSecret}))
			co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
			r := newRig(t, rigOptions{version: v, client: co, responder: c.options()})
			wantResult(t, r.call(t, secretCall), `{"status":"declined","answered_by":"unattended","answers":[]}`)
			if n := len(h.seen()); n != 0 {
				t.Errorf("the client was shown %d elicitations; want none", n)
			}
		})
	}
}

// codePost types a code on the card's code page for the ask at target,
// with the browser's cookies in jar, and returns the status.
func codePost(t *testing.T, c *card, hc *http.Client, code, target string) int {
	t.Helper()
	res, err := hc.PostForm(c.srv.URL+"/code", url.Values{"code": {code}, "next": {target}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestCodesVoidAfterFailures: ten wrong codes typed for an ask void its
// code, so that guessing cannot succeed — and a good code typed for
// another ask in between (which whoever starts asks can mint at will)
// resets nothing.
func TestCodesVoidAfterFailures(t *testing.T) {
	c := newCard(t)
	code := c.codes.Issue("mcp", "ask-1", farFuture)
	hc := browser()
	for i := range 10 {
		if i == 9 {
			// The attacker's own ask, and its good code.
			own := c.codes.Issue("mcp", "ask-2", farFuture)
			if s := codePost(t, c, hc, own, "/asks/ask-2"); s != http.StatusSeeOther {
				t.Fatalf("the good code of another ask: %d; want 303", s)
			}
		}
		if s := codePost(t, c, hc, "WRNG-CODE", "/asks/ask-1"); s != http.StatusForbidden {
			t.Fatalf("a wrong code: %d; want 403", s)
		}
	}
	if s := codePost(t, c, hc, code, "/asks/ask-1"); s != http.StatusForbidden {
		t.Errorf("the right code after ten wrong ones: %d; want 403 (voided)", s)
	}
	if again := c.codes.Issue("mcp", "ask-1", farFuture); again != "" {
		t.Errorf("a voided ask got a new code %q; want none for the rest of its life", again)
	}
}

// TestCodesBoundToAsk: a code admits to its own ask, never to another ask
// of the same session — so that whoever sees the code of an ask of their
// own cannot answer the person's.
func TestCodesBoundToAsk(t *testing.T) {
	c := newCard(t)
	own := c.codes.Issue("mcp", "ask-own", farFuture)
	_ = c.codes.Issue("mcp", "ask-person", farFuture)
	hc := browser()
	if s := codePost(t, c, hc, own, "/asks/ask-own"); s != http.StatusSeeOther {
		t.Fatalf("the code on its own ask: %d; want 303", s)
	}
	u, _ := url.Parse(c.srv.URL)
	var ck *http.Cookie
	for _, k := range hc.Jar.Cookies(u) {
		ck = k
	}
	if ck == nil {
		t.Fatal("no admission cookie")
	}
	authorize := func(path string) error {
		r := httptest.NewRequest("POST", path, nil)
		r.AddCookie(ck)
		_, err := c.codes.Authorize(r, "mcp")
		return err
	}
	if err := authorize("/api/asks/ask-own/submit"); err != nil {
		t.Errorf("its own ask: %v; want admitted", err)
	}
	for _, p := range []string{"/api/asks/ask-person/submit", "/api/asks/ask-person/answers/token", "/asks/ask-person"} {
		if err := authorize(p); !errors.Is(err, mcpresponder.ErrNotAdmitted) {
			t.Errorf("%s: %v; want ErrNotAdmitted", p, err)
		}
	}
	if s := codePost(t, c, hc, own, "/asks/ask-person"); s != http.StatusForbidden {
		t.Errorf("its code typed for the other ask: %d; want 403", s)
	}
}

var farFuture = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
