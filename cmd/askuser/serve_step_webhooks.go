package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/webhook"
)

// stepWebhookFlags are serve's --step-webhook NAME=URL flags: the
// channels webhook:NAME a route's step may name.
type stepWebhookFlags struct {
	pairs listFlag
}

func (s *stepWebhookFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.pairs, "step-webhook", "make the channel webhook:NAME of a --routes step POST a signed notice of the ask (its ids, the channel and its deadline; no question text) to `NAME=URL` when the step begins (repeatable; signed with the --webhook-secret-file secret; docs/serve.md)")
}

// parse checks the flags and returns the URL of each name.
func (s *stepWebhookFlags) parse() (map[string]string, error) {
	out := map[string]string{}
	for _, p := range s.pairs {
		name, u, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--step-webhook %s: want NAME=URL, NAME the channel's target in webhook:NAME", webhook.Redact(p))
		}
		if c, err := route.ParseChannel("webhook:" + name); err != nil || c.Target != name {
			return nil, fmt.Errorf("--step-webhook: %q is not a channel name: write it as a routes file names webhook:NAME", name)
		}
		ep := webhook.Endpoint{URL: u, Secret: make([]byte, webhook.MinSecretBytes)}
		if err := ep.Check(); err != nil {
			return nil, fmt.Errorf("--step-webhook %s: %w", name, err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--step-webhook %s is given twice; give each name one URL", name)
		}
		out[name] = u
	}
	return out, nil
}

// stepNotice is what a step webhook is POSTed: which ask, which channel,
// until when. Nothing the model wrote is in it.
type stepNotice struct {
	Event      string    `json:"event"` // "step"
	Channel    string    `json:"channel"`
	AskID      string    `json:"ask_id"`
	Session    string    `json:"session"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// stepWebhook is the responder of the channel webhook:NAME: told an ask
// (EventDriven), it POSTs a notice, signed, tried again with backoff
// until the endpoint answers 2xx or the ask ends. It decides nothing: it
// takes no approval, and a receiver answers on the card.
type stepWebhook struct {
	channel string
	ep      *webhook.Endpoint
	logger  *slog.Logger
	wg      *sync.WaitGroup
}

// ResponderName names the channel in the journal.
func (s *stepWebhook) ResponderName() string { return s.channel }

// Asked sends the notice on a goroutine of its own.
func (s *stepWebhook) Asked(a *askuser.Ask) {
	ctx, cancel := context.WithDeadline(context.Background(), a.Form().ExpiresAt)
	a.AfterEnd(cancel)
	s.wg.Go(func() {
		defer cancel()
		s.send(ctx, a)
	})
}

// Respond sends the notice and waits for the ask to end.
func (s *stepWebhook) Respond(ctx context.Context, a *askuser.Ask) error {
	s.send(ctx, a)
	<-ctx.Done()
	return ctx.Err()
}

func (s *stepWebhook) send(ctx context.Context, a *askuser.Ask) {
	body, err := json.Marshal(stepNotice{Event: "step", Channel: s.channel, AskID: a.ID(), Session: a.Session(), ToolCallID: a.ToolCallID(), ExpiresAt: a.Form().ExpiresAt})
	if err != nil {
		return
	}
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := s.ep.Send(ctx, a.ID()+"."+s.channel, body)
		if err == nil || ctx.Err() != nil {
			return
		}
		s.logger.Warn("askuser serve: a step webhook failed; it will be tried again", "channel", s.channel, "ask", a.ID(), "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// stepChannels makes the Orchestrator.Channels of --step-webhook, signed
// with the webhook secret (w's file, else DIR/webhook-secret). stop waits
// for the notices under way.
func (e env) stepChannels(hooks map[string]string, w webhookFlags, state string, logger *slog.Logger) (map[string]askuser.Responder, func(), error) {
	if len(hooks) == 0 {
		return nil, func() {}, nil
	}
	file := w.secretFile
	if file == "" {
		file = filepath.Join(state, webhookFileName)
	}
	secret, made, err := bearerToken("--webhook-secret-file", file)
	if err != nil {
		return nil, nil, err
	}
	if made {
		fmt.Fprintf(e.stderr, "askuser serve: made the webhook secret file %s (mode 0600): receivers check each delivery's Askuser-Signature with it\n", file)
	}
	wg := &sync.WaitGroup{}
	out := map[string]askuser.Responder{}
	for name, u := range hooks {
		ch := "webhook:" + name
		out[ch] = &stepWebhook{channel: ch, ep: &webhook.Endpoint{URL: u, Secret: []byte(secret)}, logger: logger, wg: wg}
	}
	return out, wg.Wait, nil
}
