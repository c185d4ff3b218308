package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/mail"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/email"
	"github.com/askuser-go/askuser/store"
)

// emailFlags are the --smtp and --email-* flags of serve, ask and approve.
type emailFlags struct {
	smtp, from, to, user, passwordFile string
}

func (f *emailFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.smtp, "smtp", "", "mail each ask through the SMTP server at `HOST:PORT` (STARTTLS where it offers it), answered through signed single-use links (docs/email.md)")
	fs.StringVar(&f.from, "smtp-from", "", "the mails' sender `ADDR`")
	fs.StringVar(&f.to, "email-to", "", "mail the asks to `ADDR`")
	fs.StringVar(&f.user, "smtp-user", "", "log in to the SMTP server as `NAME` (only over STARTTLS)")
	fs.StringVar(&f.passwordFile, "smtp-password-file", "", "the SMTP password is in `FILE`, mode 0600")
}

// given reports whether any of the flags is set.
func (f *emailFlags) given() bool { return *f != emailFlags{} }

// check refuses flags that do not go together.
func (f *emailFlags) check() error {
	switch {
	case f.smtp == "":
		return errors.New("--smtp HOST:PORT is required with email: the mail server")
	case f.from == "" || f.to == "":
		return errors.New("--smtp-from ADDR and --email-to ADDR are required with email")
	case (f.user == "") != (f.passwordFile == ""):
		return errors.New("--smtp-user NAME and --smtp-password-file FILE go together")
	}
	if _, _, err := net.SplitHostPort(f.smtp); err != nil {
		return fmt.Errorf("--smtp %q is not HOST:PORT (smtp.example.com:587, say)", f.smtp)
	}
	for _, a := range []struct{ flag, v string }{{"--smtp-from", f.from}, {"--email-to", f.to}} {
		if _, err := mail.ParseAddress(a.v); err != nil {
			return fmt.Errorf("%s %q is not a mail address: %v", a.flag, a.v, err)
		}
	}
	return nil
}

// open makes the responder, which connects to the SMTP server once, so
// that an unreachable server or a refused login is reported at start.
// Its links begin with public; key signs them.
func (f *emailFlags) open(ctx context.Context, logger *slog.Logger, public string, key []byte, cardURL func(session, askID string) string, secretLink func(*askuser.Ask, string) (string, error), notes store.Notes) (*email.Responder, error) {
	opts := email.Options{SMTPAddr: f.smtp, From: f.from, To: f.to, PublicURL: public, Key: key, CardURL: cardURL, SecretLink: secretLink, Logger: logger, Notes: notes}
	if f.user != "" {
		pw, err := readSecretFile("--smtp-password-file", f.passwordFile)
		if err != nil {
			return nil, err
		}
		opts.Username, opts.Password = f.user, pw
	}
	return email.New(ctx, opts)
}
