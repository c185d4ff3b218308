// Package webhook sends askuser's final results to HTTP endpoints, signed so
// that the receiver can tell they came from askuser and were not replayed.
//
// Each delivery is one POST whose body is the ask's journal record (JSON;
// the journal's format: it holds no secret value, only references), with
// three headers:
//
//	Content-Type: application/json
//	Askuser-Webhook-Id: <the ask id: the same on every retry of one ask>
//	Askuser-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>
//
// The signature is HMAC-SHA256, keyed with the endpoint's secret, over the
// timestamp, a full stop and the raw body ("1733097600.{...}"), as Stripe's
// and Slack's webhooks are signed. A receiver checks it with Verify (or the
// clients under clients/, which do the same), refuses a timestamp more than
// five minutes from its clock, and answers 2xx once it has kept the result:
// any other answer, or none within the timeout, has the delivery tried again
// later. Deliveries are at least once: a receiver that must act once on an
// ask keeps the ids it has seen.
//
// askuser serve delivers from the journal (one durable feed per endpoint,
// shared by every replica), so a result is delivered even when the replica
// that finalized it is killed; see docs/serve.md.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	// IDHeader carries the ask id, the same on every try of one delivery.
	IDHeader = "Askuser-Webhook-Id"
	// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256>".
	SignatureHeader = "Askuser-Signature"
)

// Tolerance is how far a delivery's timestamp may be from the receiver's
// clock for Verify to take it: five minutes, as Slack's and Stripe's.
const Tolerance = 5 * time.Minute

// Timeout is how long Send waits for an endpoint's answer.
const Timeout = 10 * time.Second

// MinSecretBytes is the shortest secret Send and Verify accept.
const MinSecretBytes = 16

// Sign returns the SignatureHeader value of body sent at t.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors Verify returns, wrapped with what was wrong.
var (
	// ErrSignature: the header is missing or malformed, or no v1
	// signature in it matches the body.
	ErrSignature = errors.New("webhook: the signature does not match")
	// ErrStale: the timestamp is further than the tolerance from now.
	ErrStale = errors.New("webhook: the timestamp is too far from now")
)

// Verify checks that header (the SignatureHeader value) signs body with
// secret, at a time within tolerance of now (0: Tolerance). A header may
// carry several v1 signatures (while a secret is being rotated): one
// matching is enough.
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if len(secret) < MinSecretBytes {
		return fmt.Errorf("webhook: the secret is %d bytes; at least %d are needed", len(secret), MinSecretBytes)
	}
	if tolerance <= 0 {
		tolerance = Tolerance
	}
	if len(header) > 4096 {
		return fmt.Errorf("%w: the header is longer than 4096 bytes", ErrSignature)
	}
	var ts string
	var sigs [][]byte
	for field := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(field), "=")
		if !ok {
			return fmt.Errorf("%w: %q is not key=value (want t=<unix seconds>,v1=<hex>)", ErrSignature, field)
		}
		switch k {
		case "t":
			if ts != "" {
				return fmt.Errorf("%w: the header has two timestamps", ErrSignature)
			}
			ts = v
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size {
				return fmt.Errorf("%w: a v1 signature is not %d hex bytes", ErrSignature, sha256.Size)
			}
			sigs = append(sigs, sig)
		}
		// Other schemes are ignored, so that a receiver keeps working
		// when a later version adds one.
	}
	if ts == "" || len(sigs) == 0 {
		return fmt.Errorf("%w: the header needs t=<unix seconds> and v1=<hex> (got %d signatures)", ErrSignature, len(sigs))
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec <= 0 || ts[0] == '+' || ts[0] == '0' {
		return fmt.Errorf("%w: the timestamp %q is not unix seconds", ErrSignature, ts)
	}
	want := mac(secret, ts, body)
	ok := false
	for _, sig := range sigs {
		ok = hmac.Equal(sig, want) || ok
	}
	if !ok {
		return ErrSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: it is %v from this clock; at most %v is taken", ErrStale, d.Abs().Round(time.Second), tolerance)
	}
	return nil
}

// An Endpoint is one receiver of deliveries.
type Endpoint struct {
	// URL is where deliveries are POSTed: http or https.
	URL string
	// Secret keys the signature (at least MinSecretBytes).
	Secret []byte
	// Client sends the requests (nil: one with Timeout that follows no
	// redirect: a 3xx is a failed delivery).
	Client *http.Client
	// Now is the clock of the signatures (nil: time.Now).
	Now func() time.Time
}

// Check reports what is wrong with the endpoint's URL or secret.
func (e *Endpoint) Check() error {
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook URL %q: want an http:// or https:// URL with a host", Redact(e.URL))
	}
	if len(e.Secret) < MinSecretBytes {
		return fmt.Errorf("webhook %s: the secret is %d bytes; at least %d are needed", Redact(e.URL), len(e.Secret), MinSecretBytes)
	}
	return nil
}

var defaultClient = &http.Client{
	Timeout:       Timeout,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Send POSTs body, signed, as the delivery id, and returns nil only when
// the endpoint answered 2xx. Errors name the endpoint by its scheme and host
// only (a webhook URL's path or query often holds a credential).
func (e *Endpoint) Send(ctx context.Context, id string, body []byte) error {
	if err := e.Check(); err != nil {
		return err
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: %v", Redact(e.URL), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askuser-webhook")
	req.Header.Set(IDHeader, id)
	req.Header.Set(SignatureHeader, Sign(e.Secret, now(), body))
	c := e.Client
	if c == nil {
		c = defaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the whole URL
		}
		return fmt.Errorf("webhook %s: %v", Redact(e.URL), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("webhook %s answered %s; only 2xx acknowledges a delivery", Redact(e.URL), res.Status)
	}
	return nil
}

// Redact returns the scheme and host of a URL, which can be logged: the
// rest of a webhook URL may be a credential.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an unparsable URL)"
	}
	return u.Scheme + "://" + u.Host
}
