package email

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mailbox is an SMTP server on loopback that keeps what it receives, and
// requires a login when it has a certificate.
type mailbox struct {
	srv  *smtp.Server
	addr string
	got  chan []byte
	tls  bool
}

func newMailbox(t *testing.T, withTLS bool) *mailbox {
	t.Helper()
	m := &mailbox{got: make(chan []byte, 16), tls: withTLS}
	m.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{m: m}, nil }))
	m.srv.Domain = "localhost"
	m.srv.ReadTimeout, m.srv.WriteTimeout = 10*time.Second, 10*time.Second
	if withTLS {
		m.srv.TLSConfig = selfSigned(t)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = ln.Addr().String()
	go func() { _ = m.srv.Serve(ln) }()
	t.Cleanup(func() { _ = m.srv.Close() })
	return m
}

// next returns the next mail received, failing the test after a minute.
func (m *mailbox) next(t *testing.T) []byte {
	t.Helper()
	select {
	case b := <-m.got:
		return b
	case <-time.After(time.Minute):
		t.Fatal("no mail arrived within a minute")
		return nil
	}
}

type session struct {
	m    *mailbox
	auth bool
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "askuser" || pass != "hunter2-password" {
			return errors.New("invalid username or password")
		}
		s.auth = true
		return nil
	}), nil
}
func (s *session) Mail(string, *smtp.MailOptions) error {
	if s.m.tls && !s.auth {
		return smtp.ErrAuthRequired
	}
	return nil
}
func (s *session) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err == nil {
		s.m.got <- b
	}
	return err
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

func selfSigned(t *testing.T) *tls.Config {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: priv}}}
}

var key = bytes.Repeat([]byte{7}, 32)

func newResponder(t *testing.T, m *mailbox, opts Options) *Responder {
	t.Helper()
	opts.SMTPAddr, opts.From, opts.To, opts.PublicURL, opts.Key = m.addr, "askuser <askuser@example.test>", "oncall@example.test", "https://askuser.example.test", key
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// parts reads a received mail: its subject, plain-text and HTML parts.
func parts(t *testing.T, raw []byte) (subject, text, html string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p) // quoted-printable is decoded by the reader
		switch {
		case strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain"):
			text = string(b)
		case strings.HasPrefix(p.Header.Get("Content-Type"), "text/html"):
			html = string(b)
		}
	}
	return subject, text, html
}

var linkRE = regexp.MustCompile(`https://askuser\.example\.test(/email/l/[A-Za-z0-9_.-]+)`)

func hit(r *Responder, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

const deployCall = `{"human_intent":"Shipping the login fix","questions":[{"id":"env","header":"Env","question":"Which environment first?","options":[
	{"label":"staging","description":"Smoke tests first","default":true},
	{"label":"production","description":"Straight to users"}]}],"timeout_seconds":300}`

// TestLinks: the mail has one link per option; following a link as a
// scanner does (GET only) decides nothing; the person's POST decides, as the
// mailbox; a used link, and another link of an ended ask, change nothing.
func TestLinks(t *testing.T) {
	m := newMailbox(t, false)
	r := newResponder(t, m, Options{})
	o := &askuser.Orchestrator{Responder: r}
	defer o.Close()
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(deployCall)})
		if err != nil {
			t.Error(err)
		}
		out <- res
	}()
	raw := m.next(t)
	subject, text, html := parts(t, raw)
	if subject != "Your agent asks: Which environment first?" {
		t.Errorf("subject %q", subject)
	}
	links := linkRE.FindAllStringSubmatch(text, -1)
	if len(links) != 2 || !strings.Contains(text, "staging (recommended) — Smoke tests first:") || !strings.Contains(text, "Agent: Shipping the login fix") {
		t.Fatalf("the text part:\n%s\nwant two links, the options and the intent", text)
	}
	if strings.Contains(html, "<img") || strings.Count(html, `<a href="https://askuser.example.test/email/l/`) != 2 {
		t.Errorf("the HTML part:\n%s\nwant two links and no image", html)
	}
	staging, production := links[0][1], links[1][1]

	// A scanner fetches every link: nothing is decided.
	for _, l := range []string{staging, production} {
		if rec := hit(r, http.MethodGet, l); rec.Code != 200 || !strings.Contains(rec.Body.String(), `<form method="post"`) {
			t.Fatalf("GET %s: %d %s; want the confirm page", l, rec.Code, rec.Body)
		}
	}
	if rec := hit(r, http.MethodHead, staging); rec.Code != 200 {
		t.Errorf("HEAD: %d", rec.Code)
	}
	if p := o.Pending("s"); len(p) != 1 {
		t.Fatalf("after the scanner, pending %+v; want the ask still pending", p)
	}
	if rec := hit(r, http.MethodGet, production); !strings.Contains(rec.Body.String(), "Your answer: <b>production</b> — Straight to users") || rec.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("the confirm page: %s %v", rec.Body, rec.Header())
	}

	// The person confirms.
	if rec := hit(r, http.MethodPost, production); rec.Code != 200 || !strings.Contains(rec.Body.String(), "Your answer was taken: production") {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	res := <-out
	if res.AnsweredBy != askuser.ByUser || res.Principal != "mailto:oncall@example.test" || res.Answers[0].Selected[0] != "production" || res.Responder != "email" {
		t.Fatalf("outcome %+v; want production by the user, principal the mailbox", res)
	}
	if rec := hit(r, http.MethodPost, production); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "This link was used") {
		t.Errorf("the used link again: %d %s", rec.Code, rec.Body)
	}
	if rec := hit(r, http.MethodPost, staging); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "This ask has ended") {
		t.Errorf("the other link of the ended ask: %d %s", rec.Code, rec.Body)
	}
	if rec := hit(r, http.MethodPost, production[:len(production)-3]+"AAA"); rec.Code != http.StatusNotFound {
		t.Errorf("a changed link: %d", rec.Code)
	}
}

// TestLinkVerifier: a link past its expiry, a changed one and a malformed
// one are refused, saying which.
func TestLinkVerifier(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tok := sign(key, link{Ask: "a", Option: 1, Expires: now.Unix() + 60, Nonce: "n"})
	if l, err := verify(key, tok, now); err != nil || l.Option != 1 {
		t.Fatalf("a good link: %+v %v", l, err)
	}
	if _, err := verify(key, tok, now.Add(time.Minute)); !errors.Is(err, errLinkExpired) {
		t.Errorf("at its expiry: %v; want expired", err)
	}
	if _, err := verify(bytes.Repeat([]byte{8}, 32), tok, now); !errors.Is(err, errLinkInvalid) {
		t.Errorf("another key: %v", err)
	}
	body, sig, _ := strings.Cut(tok, ".")
	for _, bad := range []string{"", "x", body, body + ".", "A" + body[1:] + "." + sig, tok + "x", sign(key, link{Ask: "", Nonce: "n", Expires: now.Unix() + 1})} {
		if _, err := verify(key, bad, now); !errors.Is(err, errLinkInvalid) {
			t.Errorf("verify(%q) = %v; want invalid", bad, err)
		}
	}
}

// TestApprovals: without a way to verify the person, the responder takes
// no approval; with one, the confirm page's POST needs it, and the
// principal is who it names.
func TestApprovals(t *testing.T) {
	m := newMailbox(t, false)
	if r := newResponder(t, m, Options{}); r.CanTakeApprovals() {
		t.Error("a mailbox alone takes approvals")
	}
	signedIn := false
	r := newResponder(t, m, Options{Authorize: func(*http.Request) (string, bool) { return "alice", signedIn }})
	o := &askuser.Orchestrator{Responder: r}
	defer o.Close()
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(),
			Arguments: []byte(`{"action":"Restart <b>prod</b>","reason":"it hangs","risk":"high","details":"systemctl restart api"}`)})
		if err != nil {
			t.Error(err)
		}
		out <- res
	}()
	_, text, html := parts(t, m.next(t))
	links := linkRE.FindAllStringSubmatch(text, -1)
	if len(links) != 4 || !strings.Contains(text, "Digest: sha256:") || !strings.Contains(html, "Restart &lt;b&gt;prod&lt;/b&gt;") {
		t.Fatalf("the approval mail:\n%s\n%s", text, html)
	}
	approve := links[0][1]
	if rec := hit(r, http.MethodPost, approve); rec.Code != http.StatusForbidden {
		t.Fatalf("POST without signing in: %d %s; want 403", rec.Code, rec.Body)
	}
	signedIn = true
	if rec := hit(r, http.MethodPost, approve); rec.Code != 200 {
		t.Fatalf("POST signed in: %d %s", rec.Code, rec.Body)
	}
	res := <-out
	if v, _ := approvaltool.VerdictOf(res); v.Status != approval.Approved || res.Principal != "alice" {
		t.Errorf("verdict %+v, principal %q; want approved by alice", v, res.Principal)
	}
}

// TestModelTextInert: markup and escapes a model wrote are text in the
// mail, and the subject stays one header line.
func TestModelTextInert(t *testing.T) {
	m := newMailbox(t, false)
	r := newResponder(t, m, Options{})
	o := &askuser.Orchestrator{Responder: r}
	defer o.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = o.Handle(ctx, askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(`{"questions":[{"id":"q","header":"H","question":"<script>alert(1)</script> <img src=https://evil.example/x> \u001b[2J\nBcc: victim@example.test","options":[{"label":"a<b","description":"d"},{"label":"b","description":"d"}]}]}`)})
	}()
	raw := m.next(t)
	cancel()
	<-done
	subject, text, html := parts(t, raw)
	if strings.Contains(html, "<script") || strings.Contains(html, "<img") || !strings.Contains(html, "&lt;script&gt;") || strings.ContainsRune(text+html+subject, 0x1b) {
		t.Errorf("model text is live in the mail:\n%s\n%s", html, text)
	}
	msg, _ := mail.ReadMessage(bytes.NewReader(raw))
	if msg.Header.Get("Bcc") != "" || !strings.Contains(subject, `\nBcc: victim`) {
		t.Errorf("a newline in the question made a header: %v, subject %q", msg.Header, subject)
	}
}

// TestNew: the mail server is tried at start; a password is never sent
// without STARTTLS; with it, the login and the mail go through.
func TestNew(t *testing.T) {
	m := newMailbox(t, false)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	base := Options{SMTPAddr: m.addr, From: "a@example.test", To: "b@example.test", PublicURL: "https://x.test", Key: key}
	for _, tt := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.SMTPAddr = dead }, "connecting to the SMTP server"},
		{func(o *Options) { o.Username, o.Password = "askuser", "hunter2-password" }, "offers no STARTTLS: a password is never sent in the clear"},
		{func(o *Options) { o.Key = key[:16] }, "the link key is 16 bytes; at least 32"},
		{func(o *Options) { o.PublicURL = "x.test" }, "must be http:// or https://"},
		{func(o *Options) { o.To = "not an address" }, `"not an address" is not an address`},
	} {
		o := base
		tt.edit(&o)
		if _, err := New(context.Background(), o); err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New: %v; want an error saying %q, without the password", err, tt.want)
		}
	}
	secure := newMailbox(t, true)
	r := newResponder(t, secure, Options{Username: "askuser", Password: "hunter2-password", TLSInsecureSkipVerify: true})
	if err := r.send([]byte("Subject: hi\r\n\r\nhello\r\n"), "p@example.com"); err != nil {
		t.Fatalf("sending over STARTTLS with a login: %v", err)
	}
	if got := secure.next(t); !bytes.Contains(got, []byte("hello")) {
		t.Errorf("received %q", got)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(sign(key, link{Ask: "a", Option: 0, Expires: 2_000_000_000, Nonce: "n"}))
	f.Add(sign(key, link{Ask: "a", Option: 1, Expires: 2_000_000_000, Nonce: "n", Via: "email", To: "lead@example.com"}))
	f.Add("e30.AAAA")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		l, err := verify(key, tok, time.Unix(1_800_000_000, 0))
		if err == nil && (l.Ask == "" || l.Nonce == "") {
			t.Fatalf("verify took %q: %+v", tok, l)
		}
		if err == nil {
			// What verifies signs again to a link that verifies the same:
			// a step's channel and mailbox come only from a signed link.
			again, err := verify(key, sign(key, l), time.Unix(1_800_000_000, 0))
			if err != nil || again != l {
				t.Fatalf("%+v signed again verifies as %+v, %v", l, again, err)
			}
		}
	})
}
