package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// Options configure a Responder. SMTPAddr, From, To, PublicURL and Key are
// required.
type Options struct {
	// SMTPAddr is the mail server's host:port. STARTTLS is used where the
	// server offers it, and required when Username is set.
	SMTPAddr string
	// Username and Password authenticate to the server (PLAIN), when set.
	Username, Password string
	// From and To are the sender's and the person's addresses.
	From, To string
	// PublicURL is where people reach this responder's handler
	// (scheme://host[:port], without "/email/"): the links begin with it.
	PublicURL string
	// Key signs the links: at least 32 bytes, the same on every replica.
	Key []byte
	// CardURL is the web card's URL for an ask, for what a link cannot
	// answer (several questions, free text); nil: none. It is never put in
	// the mail of an ask with a secret: see SecretLink.
	CardURL func(session, askID string) string
	// SecretLink makes a one-time link to the web card for an ask with a
	// secret question, for the mailbox ("mailto:ADDRESS"):
	// web.Responder.OneTimeLinks gives one. The mail carries it in place of
	// CardURL: good once, for that ask only. Nil: an ask with a secret
	// cannot be answered by email. A secret never goes through mail.
	SecretLink func(a *askuser.Ask, principal string) (string, error)
	// Authorize, when set, verifies the person on the confirm page before
	// an approval is taken (the web card's sign-in, say), and names them
	// (the principal).
	Authorize func(r *http.Request) (principal string, ok bool)
	// SendCode, when set, sends a short code (XXXX-XXXX) for the approval
	// a through a channel apart from the mail (a text message, a chat,
	// another mailbox) to the person of mailbox, once, as the approval is
	// mailed: its confirm pages ask for it, refuse a wrong one, and after
	// MaxCodeAttempts wrong codes take no decision on that approval by
	// email. Say which approval the code is for (a.Form().Approval.Action,
	// which a model wrote: make it inert where it is shown). An approval
	// that cannot be sent a code is not mailed (nobody can be asked). The
	// principal stays the mailbox unless Authorize names someone; with
	// both set, a decision needs both. Without Authorize and SendCode,
	// approvals are not taken by email.
	SendCode func(ctx context.Context, mailbox string, a *askuser.Ask, code string) error
	// Logger receives what goes wrong (nil: slog.Default()). No answer,
	// link or password is ever logged.
	Logger *slog.Logger
	// Notes keeps the links already used and the approvals' codes
	// (SendCode: each code's digest and the attempts left), shared by the
	// replicas of a fleet, so that a link decides once whichever replica
	// it reaches and a code's attempts are counted across them all: give
	// every replica the same one (natsstore's Store.Notes), with a time
	// to live longer than the longest ask, the same Key and the same
	// Orchestrator.Asks. nil: notes in memory, for one process.
	Notes store.Notes
	// TLSInsecureSkipVerify accepts any certificate on STARTTLS: for a
	// test's server only. By default the server's certificate is checked
	// against the system's roots, for its host name.
	TLSInsecureSkipVerify bool
}

// MaxLinkOptions is how many options a choice may have to get one link
// each; a larger one links to the card.
const MaxLinkOptions = 4

const sendTimeout = 30 * time.Second

// A Responder mails asks and takes their answers through its links. It is
// an askuser.EventDriven responder and the links' http.Handler.
type Responder struct {
	opts   Options
	log    *slog.Logger
	public string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	notes    store.Notes
	sessions atomic.Pointer[askuser.Sessions] // finds an ask mailed by another replica

	mu     sync.Mutex
	asks   map[string]*askuser.Ask // by mailKey: the ask's own mail, or a step's
	closed bool
}

// A mailing is one mail of an ask: the ask's own, to Options.To, or one a
// route's step told this responder of (responder.Told), to the step's
// mailbox, whose links answer through the step's channel.
type mailing struct {
	to  string // the mailbox it goes to, and that its links answer as
	via string // the step's channel, as the route names it; "" for the ask's own mail
}

// mailKey is where the responder keeps the handle a link of the mailing
// (via) of ask askID answers through.
func mailKey(askID, via string) string { return askID + "|" + via }

// codeID is what an approval's code is noted under: the ask, for its own
// mail; the ask, the step's channel and the mailbox, for a step's.
func codeID(askID string, m mailing) string {
	if m.via == "" {
		return askID
	}
	return askID + "|" + m.via + "|" + m.to
}

// stepMailboxes is where a step's channel sends its mail: its target
// ("email:lead@example.com"); else the step's people who are mail
// addresses ("email" with people [lead@example.com]); else Options.To.
func (r *Responder) stepMailboxes(t route.Told) []string {
	if c, err := route.ParseChannel(t.Channel); err == nil && c.Kind == "email" && c.Target != "" {
		if a, err := mail.ParseAddress(c.Target); err == nil {
			return []string{a.Address}
		}
	}
	var out []string
	for _, p := range t.People {
		if a, err := mail.ParseAddress(p); err == nil && !slices.Contains(out, a.Address) {
			out = append(out, a.Address)
		}
	}
	if out == nil {
		out = []string{r.addr(r.opts.To)}
	}
	return out
}

// stepNoteKey is the note that a step's mails of an ask were sent: one per
// ask, step and channel, created by the first replica to tell the step.
func stepNoteKey(askID string, t route.Told) string {
	d := sha256.Sum256([]byte(askID + "|" + strconv.Itoa(t.Begin.Pass) + "|" + strconv.Itoa(t.Begin.Step) + "|" + t.Channel))
	return "mail." + hex.EncodeToString(d[:16])
}

var (
	_ askuser.EventDriven     = (*Responder)(nil)
	_ askuser.Announcer       = (*Responder)(nil)
	_ askuser.ApprovalCapable = (*Responder)(nil)
	_ askuser.Named           = (*Responder)(nil)
	_ http.Handler            = (*Responder)(nil)
)

// New checks the options and the mail server (one connection: EHLO,
// STARTTLS and authentication where they apply) and returns the responder.
func New(ctx context.Context, opts Options) (*Responder, error) {
	switch {
	case opts.SMTPAddr == "":
		return nil, errors.New("email: the SMTP server's host:port is required")
	case opts.From == "" || opts.To == "":
		return nil, errors.New("email: a From and a To address are required")
	case len(opts.Key) < 32:
		return nil, fmt.Errorf("email: the link key is %d bytes; at least 32 are needed", len(opts.Key))
	case !strings.HasPrefix(opts.PublicURL, "http://") && !strings.HasPrefix(opts.PublicURL, "https://"):
		return nil, fmt.Errorf("email: the public URL %q must be http:// or https://: the links in the mails begin with it", inert.Line(opts.PublicURL))
	}
	for _, a := range []string{opts.From, opts.To} {
		if _, err := mail.ParseAddress(a); err != nil {
			return nil, fmt.Errorf("email: %q is not an address: %v", inert.Line(a), err)
		}
	}
	r := &Responder{opts: opts, log: opts.Logger, public: strings.TrimRight(opts.PublicURL, "/"), asks: map[string]*askuser.Ask{}, notes: opts.Notes}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.notes == nil {
		r.notes = &store.MemoryNotes{}
	}
	cctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	c, err := r.dial(cctx)
	if err != nil {
		return nil, err
	}
	_ = c.Quit()
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return r, nil
}

// dial connects, says hello, and secures and authenticates the connection
// where that applies: STARTTLS whenever the server offers it, and always
// before a password is sent.
func (r *Responder) dial(ctx context.Context) (*smtp.Client, error) {
	connect := func() (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", r.opts.SMTPAddr)
		if err != nil {
			return nil, fmt.Errorf("email: connecting to the SMTP server %s: %w", r.opts.SMTPAddr, err)
		}
		if dl, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(dl)
		}
		return conn, nil
	}
	fail := func(c *smtp.Client, what string, err error) (*smtp.Client, error) {
		c.Close()
		return nil, fmt.Errorf("email: the SMTP server %s %s: %w", r.opts.SMTPAddr, what, err)
	}
	conn, err := connect()
	if err != nil {
		return nil, err
	}
	c := smtp.NewClient(conn)
	if err := c.Hello("localhost"); err != nil {
		return fail(c, "refused the greeting", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		_ = c.Quit()
		c.Close()
		if conn, err = connect(); err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(r.opts.SMTPAddr)
		if c, err = smtp.NewClientStartTLS(conn, tlsConfig(host, r.opts.TLSInsecureSkipVerify)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("email: the SMTP server %s failed STARTTLS: %w", r.opts.SMTPAddr, err)
		}
	} else if r.opts.Username != "" {
		return fail(c, "offers no STARTTLS", errors.New("a password is never sent in the clear"))
	}
	if r.opts.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", r.opts.Username, r.opts.Password)); err != nil {
			return fail(c, "refused the login", err)
		}
	}
	return c, nil
}

// ResponderName is the responder's name in the journal: "email".
func (r *Responder) ResponderName() string { return "email" }

// CanTakeApprovals reports whether the confirm page verifies more than the
// mailbox (Options.Authorize, or a code Options.SendCode sends apart): a
// mailbox alone does not.
func (r *Responder) CanTakeApprovals() bool { return r.opts.Authorize != nil || r.opts.SendCode != nil }

// FollowSessions keeps s, through which a link that reaches this replica
// finds an ask another replica mailed. The orchestrator calls it at its
// first use.
func (r *Responder) FollowSessions(s *askuser.Sessions) { r.sessions.CompareAndSwap(nil, s) }

// AnnouncesAsks reports true: the responder mails every ask once, where it
// began, whether or not a card follows its session there.
func (r *Responder) AnnouncesAsks() bool { return true }

// Asked mails the ask, on the replica that began it only
// (responder.BeganHere). The handle a route's later step gives its
// channel (responder.Told) is mailed wherever it is told — the step is
// told on one replica, which need not be the one that began the ask —
// once per step and channel across the fleet (a note of the step's mail
// is created first, and only the replica that creates it mails), to the
// step's mailbox: "email:lead@example.com" mails lead@example.com;
// "email" alone mails each of the step's people who is a mail address,
// else Options.To. A step's mail that cannot be sent is logged and ends
// nothing: the ask is still on the channels told before. It does not
// block.
func (r *Responder) Asked(a *askuser.Ask) {
	t, step := responder.Told(a)
	if !step && !responder.BeganHere(a) {
		return
	}
	mailings := []mailing{{to: r.addr(r.opts.To)}}
	if step {
		mailings = nil
		for _, to := range r.stepMailboxes(t) {
			mailings = append(mailings, mailing{to: to, via: t.Channel})
		}
	}
	key := mailKey(a.ID(), mailings[0].via)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		if !step {
			_ = a.Unreachable()
		}
		return
	}
	if r.asks[key] != nil {
		r.mu.Unlock()
		return // told twice here: mailed once
	}
	r.asks[key] = a
	r.wg.Add(1)
	r.mu.Unlock()
	a.AfterEnd(func() {
		r.mu.Lock()
		delete(r.asks, key)
		r.mu.Unlock()
	})
	go func() {
		defer r.wg.Done()
		if step {
			ctx, cancel := context.WithTimeout(r.ctx, sendTimeout)
			_, err := r.notes.Create(ctx, stepNoteKey(a.ID(), t), nil)
			cancel()
			if errors.Is(err, store.ErrExists) {
				return // another replica, or a teller before, mailed this step
			}
			if err != nil {
				r.log.Error("askuser email: noting a step's mail failed: it is not mailed", "ask", a.ID(), "channel", t.Channel, "err", err)
				return
			}
		}
		for _, m := range mailings {
			err := r.sendCode(a, codeID(a.ID(), m), m.to)
			var msg []byte
			if err == nil {
				msg, err = r.compose(a, m)
			}
			if err == nil {
				err = r.send(msg, m.to)
			}
			switch {
			case err != nil && step:
				r.log.Error("askuser email: a route step's mail could not be sent; the ask stays on the channels told before", "ask", a.ID(), "channel", m.via, "err", err)
			case err != nil:
				r.log.Error("askuser email: the ask could not be mailed: nobody can see it here", "ask", a.ID(), "err", err)
				_ = a.Unreachable()
			}
		}
	}()
}

// Respond is for a responder chosen by askuser.FirstReachable: it mails the
// ask and waits for its end.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

func (r *Responder) send(msg []byte, to string) error {
	ctx, cancel := context.WithTimeout(r.ctx, sendTimeout)
	defer cancel()
	c, err := r.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SendMail(r.addr(r.opts.From), []string{to}, bytes.NewReader(msg)); err != nil {
		return fmt.Errorf("email: the SMTP server %s refused the mail: %w", r.opts.SMTPAddr, err)
	}
	return c.Quit()
}

func (r *Responder) addr(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return s
	}
	return a.Address
}

// Close stops the responder: it mails nothing more, and the links of the
// asks it mailed say the ask is not here. The asks stay pending.
func (r *Responder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	return nil
}

// choices are the links a form gets: one per option of its one choice
// question, or of its approval; nil when the form needs the card.
func choices(f *askuser.Form) []askuser.Option {
	if len(f.Questions) != 1 {
		return nil
	}
	q := &f.Questions[0]
	switch {
	case f.Approval != nil:
		return q.Options
	case q.Kind != askuser.KindChoice || q.MultiSelect || responder.Sealed(q) || len(q.Options) > MaxLinkOptions:
		return nil
	}
	return q.Options
}

func nonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// compose writes the mail of an ask: headers, a plain-text part and an HTML
// part, every model-written text escaped and inert.
func (r *Responder) compose(a *askuser.Ask, m mailing) ([]byte, error) {
	f := a.Form()
	type entry struct{ label, desc, url string }
	var links []entry
	for j, o := range choices(f) {
		l := link{Ask: a.ID(), Session: a.Session(), Question: 0, Option: j, Expires: f.ExpiresAt.Unix(), Nonce: nonce(), Via: m.via}
		if m.via != "" {
			l.To = m.to
		}
		tok := sign(r.opts.Key, l)
		label := o.Label
		if o.Default && !f.Questions[0].NoDefault {
			label += " (recommended)"
		}
		links = append(links, entry{label, o.Description, r.public + "/email/l/" + tok})
	}
	var card, once string
	switch {
	case len(links) > 0:
	case hasSealed(f):
		if r.opts.SecretLink != nil {
			l, err := r.opts.SecretLink(a, "mailto:"+m.to)
			if err != nil {
				return nil, fmt.Errorf("email: no one-time link to the web card could be made: %w", err)
			}
			once = l
		}
	case r.opts.CardURL != nil:
		card = r.opts.CardURL(a.Session(), a.ID())
	}
	subject := "Your agent asks"
	if f.Approval != nil {
		subject = "Your agent asks for permission: " + f.Approval.Action
	} else if len(f.Questions) > 0 {
		subject += ": " + f.Questions[0].Text
	}

	var txt, htm strings.Builder
	htm.WriteString(`<!doctype html><html><body style="font-family:sans-serif">`)
	para := func(s string) {
		txt.WriteString(inert.Text(s) + "\n\n")
		htm.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(inert.Text(s)), "\n", "<br>") + "</p>")
	}
	if f.HumanIntent != "" {
		para("Agent: " + f.HumanIntent)
	}
	if ap := f.Approval; ap != nil {
		para("Action: " + ap.Action)
		para("Why: " + ap.Reason)
		para(termtext.Risk(ap.Risk) + "\nDigest: " + ap.Digest)
		if ap.Details != "" {
			txt.WriteString(inert.Text(ap.Details) + "\n\n")
			htm.WriteString("<pre>" + html.EscapeString(inert.Text(ap.Details)) + "</pre>")
		}
	} else {
		for i := range f.Questions {
			q := &f.Questions[i]
			para(q.Header + "\n" + q.Text)
		}
	}
	for _, l := range links {
		line := l.label
		if l.desc != "" {
			line += " — " + l.desc
		}
		txt.WriteString(inert.Line(line) + ":\n" + l.url + "\n\n")
		htm.WriteString(`<p><a href="` + html.EscapeString(l.url) + `">` + html.EscapeString(inert.Line(l.label)) + `</a>`)
		if l.desc != "" {
			htm.WriteString(" — " + html.EscapeString(inert.Line(l.desc)))
		}
		htm.WriteString("</p>")
	}
	switch {
	case once != "":
		txt.WriteString("Answer on the web card (a one-time link: it opens this ask once, so do not forward it; the secret is typed there, never in a mail):\n" + once + "\n\n")
		htm.WriteString(`<p><a href="` + html.EscapeString(once) + `">Answer on the web card</a> (a one-time link: it opens this ask once, so do not forward it; the secret is typed there, never in a mail)</p>`)
	case hasSealed(f):
		para("This ask holds a secret, which is never answered by email: answer it where the agent runs.")
	case card != "":
		txt.WriteString("Answer on the web card:\n" + card + "\n\n")
		htm.WriteString(`<p><a href="` + html.EscapeString(card) + `">Answer on the web card</a></p>`)
	case len(links) == 0:
		para("This ask cannot be answered by email.")
	default:
		para("Each link opens a page that asks you to confirm; opening it decides nothing.")
		if f.Approval != nil && r.opts.SendCode != nil {
			para("The page asks for the code sent to you apart from this mail.")
		}
	}
	if !f.ExpiresAt.IsZero() {
		para("Answer by " + f.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC") + ".")
	}
	htm.WriteString("</body></html>")

	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	hdr := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	hdr("From", r.opts.From)
	to := r.opts.To
	if m.via != "" {
		to = m.to
	}
	hdr("To", to)
	hdr("Subject", mime.QEncoding.Encode("utf-8", clip(oneLine(inert.Line(subject)), 150)))
	hdr("Date", time.Now().UTC().Format(time.RFC1123Z))
	hdr("Message-ID", "<"+a.ID()+"."+nonce()+"@askuser>")
	hdr("Auto-Submitted", "auto-generated")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", `multipart/alternative; boundary="`+w.Boundary()+`"`)
	b.WriteString("\r\n")
	for _, part := range []struct{ typ, body string }{{"text/plain", txt.String()}, {"text/html", htm.String()}} {
		pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {part.typ + "; charset=utf-8"}, "Content-Transfer-Encoding": {"quoted-printable"}})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(pw)
		if _, err := io.WriteString(qp, part.body); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// hasSealed reports whether a question of f is sealed (a secret, or
// sensitive).
func hasSealed(f *askuser.Form) bool {
	for i := range f.Questions {
		if responder.Sealed(&f.Questions[i]) {
			return true
		}
	}
	return false
}

// oneLine keeps a header on one line whatever inert kept.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
