package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/webhook"
)

// webhookFileName is the webhook secret's file in the state directory.
const webhookFileName = "webhook-secret"

// webhookFlags are serve's --webhook flags.
type webhookFlags struct {
	urls       listFlag
	secretFile string
}

func (w *webhookFlags) register(fs *flag.FlagSet) {
	fs.Var(&w.urls, "webhook", "POST every final result, signed, to `URL` (repeatable): retried with backoff until it answers 2xx, from the journal, so that no replica's crash loses one (docs/serve.md)")
	fs.StringVar(&w.secretFile, "webhook-secret-file", "", "the webhooks' signing secret is in `FILE`, mode 0600 (made, with a random secret, when it does not exist; default: DIR/"+webhookFileName+")")
}

// check refuses a URL that is not one, without printing more of it than
// its scheme and host.
func (w *webhookFlags) check(stepHooks int) error {
	seen := map[string]bool{}
	for _, u := range w.urls {
		ep := webhook.Endpoint{URL: u, Secret: make([]byte, webhook.MinSecretBytes)}
		if err := ep.Check(); err != nil {
			return fmt.Errorf("--webhook: %w", err)
		}
		if seen[u] {
			return fmt.Errorf("--webhook %s is given twice", webhook.Redact(u))
		}
		seen[u] = true
	}
	if w.secretFile != "" && len(w.urls) == 0 && stepHooks == 0 {
		return errors.New("--webhook-secret-file signs the deliveries to --webhook URL and --step-webhook NAME=URL: give at least one of them")
	}
	return nil
}

// feedName is the journal feed of one URL: a digest, since the URL may
// hold a credential and feed names are visible to every NATS client.
func feedName(url string) string {
	d := sha256.Sum256([]byte(url))
	return "webhook_" + hex.EncodeToString(d[:8])
}

// startWebhooks makes each URL's feed, so that every record journaled from
// now on is delivered, and delivers them until stop is called.
func (e env) startWebhooks(ctx context.Context, w webhookFlags, state string, j *natsstore.Journal, logger *slog.Logger) (stop func(), err error) {
	if len(w.urls) == 0 {
		return func() {}, nil
	}
	file := w.secretFile
	if file == "" {
		file = filepath.Join(state, webhookFileName)
	}
	secret, made, err := bearerToken("--webhook-secret-file", file)
	if err != nil {
		return nil, err
	}
	if made {
		fmt.Fprintf(e.stderr, "askuser serve: made the webhook secret file %s (mode 0600): receivers check each delivery's Askuser-Signature with it\n", file)
	}
	for _, u := range w.urls {
		if err := j.MakeFeed(ctx, feedName(u)); err != nil {
			return nil, fmt.Errorf("--webhook %s: %w", webhook.Redact(u), err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, u := range w.urls {
		ep := &webhook.Endpoint{URL: u, Secret: []byte(secret)}
		wg.Go(func() { deliverWebhooks(ctx, j, ep, logger) })
	}
	return func() { cancel(); wg.Wait() }, nil
}

// deliverWebhooks sends ep the records of its feed until ctx ends.
func deliverWebhooks(ctx context.Context, j *natsstore.Journal, ep *webhook.Endpoint, logger *slog.Logger) {
	host := webhook.Redact(ep.URL)
	for ctx.Err() == nil {
		err := j.Feed(ctx, feedName(ep.URL), func(ctx context.Context, d natsstore.Delivery) error {
			err := ep.Send(ctx, d.AskID, d.Record)
			if err != nil {
				logger.Warn("askuser serve: a webhook delivery failed; it will be tried again", "webhook", host, "ask", d.AskID, "attempt", d.Attempt, "err", err)
			}
			return err
		})
		if ctx.Err() != nil {
			return
		}
		logger.Warn("askuser serve: the webhook feed stopped; taking it up again", "webhook", host, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
