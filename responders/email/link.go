package email

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A link is what a signed link names: one option of one question of one
// ask (Option -1: the confirm page offers the card), until Expires.
type link struct {
	Ask      string `json:"a"`
	Session  string `json:"s,omitempty"` // the ask's, so that any replica finds it
	Question int    `json:"q"`
	Option   int    `json:"o"`
	Expires  int64  `json:"e"` // unix seconds
	Nonce    string `json:"n"`
	// Via is a route step's channel, as the route names it, for a step's
	// mail: the link answers through it (responder.Through). To is that
	// mail's mailbox, which the link answers as; empty: Options.To.
	Via string `json:"v,omitempty"`
	To  string `json:"t,omitempty"`
}

// mailing is the mail the link was sent in.
func (l link) mailing(defaultTo string) mailing {
	if l.To == "" {
		return mailing{to: defaultTo, via: l.Via}
	}
	return mailing{to: l.To, via: l.Via}
}

// Errors the link verifier returns.
var (
	errLinkInvalid = errors.New("this link is not one askuser sent, or it was changed")
	errLinkExpired = errors.New("this link has expired")
)

const maxLinkBytes = 1024

func sign(key []byte, l link) string {
	p, _ := json.Marshal(l)
	body := base64.RawURLEncoding.EncodeToString(p)
	return body + "." + base64.RawURLEncoding.EncodeToString(mac(key, body))
}

func mac(key []byte, body string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("askuser email link v1\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// verify checks a link's signature and expiry at now.
func verify(key []byte, token string, now time.Time) (link, error) {
	var l link
	if len(token) > maxLinkBytes {
		return l, errLinkInvalid
	}
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return l, errLinkInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, body)) {
		return l, errLinkInvalid
	}
	p, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return l, errLinkInvalid
	}
	if err := json.Unmarshal(p, &l); err != nil || l.Ask == "" || l.Nonce == "" || l.Question < 0 || l.Option < -1 {
		return link{}, fmt.Errorf("%w (its contents are malformed)", errLinkInvalid)
	}
	if now.Unix() >= l.Expires {
		return l, errLinkExpired
	}
	return l, nil
}
