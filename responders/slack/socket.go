package slack

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// SocketMode reports whether the responder takes Slack's interactions over
// Socket Mode (Options.AppToken) rather than as the interactivity endpoint.
func (r *Responder) SocketMode() bool { return r.opts.AppToken != "" }

// checkSocket checks the app-level token at New: apps.connections.open
// must give a websocket URL.
func (r *Responder) checkSocket(ctx context.Context) error {
	if _, _, err := r.api.StartSocketModeContext(ctx); err != nil {
		return fmt.Errorf("slack: apps.connections.open refused the app-level token: %v (give an xapp-… token with connections:write, and turn Socket Mode on in the app's settings)", err)
	}
	return nil
}

// runSocket takes the interactions from Socket Mode until the responder
// closes; the client reconnects by itself when Slack moves it.
func (r *Responder) runSocket() {
	smc := socketmode.New(r.api, socketmode.OptionLog(log.New(discard{}, "", 0)))
	r.loops.Go(func() {
		for {
			err := smc.RunContext(r.ctx)
			if r.ctx.Err() != nil {
				return
			}
			r.log.Warn("askuser slack: the Socket Mode connection failed; trying again in 10 seconds", "err", err)
			select {
			case <-r.ctx.Done():
				return
			case <-time.After(10 * time.Second):
			}
		}
	})
	r.loops.Go(func() {
		for {
			select {
			case <-r.ctx.Done():
				return
			case evt := <-smc.Events:
				if evt.Type != socketmode.EventTypeInteractive || evt.Request == nil {
					continue
				}
				req := *evt.Request
				cb, ok := evt.Data.(slack.InteractionCallback)
				if !ok || !r.firstEnvelope(req.EnvelopeID) {
					_ = smc.Ack(req)
					continue
				}
				r.socketInteraction(smc, req, &cb)
			}
		}
	})
}

// socketInteraction acknowledges an interaction as the endpoint answers
// one: a click at once, with the work after; a modal's submission with
// its errors, if any.
func (r *Responder) socketInteraction(smc *socketmode.Client, req socketmode.Request, cb *slack.InteractionCallback) {
	switch cb.Type {
	case slack.InteractionTypeBlockActions:
		_ = smc.Ack(req)
		r.spawn(func() { r.blockActions(cb) })
	case slack.InteractionTypeViewSubmission:
		ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
		resp := r.viewSubmission(ctx, cb)
		cancel()
		if resp == nil {
			_ = smc.Ack(req)
			return
		}
		_ = smc.Ack(req, resp)
	default:
		_ = smc.Ack(req)
	}
}

// firstEnvelope reports whether Socket Mode delivers this envelope for the
// first time to any replica (Slack sends an envelope again when its ack
// was late). A store that fails takes it: Slack's interactions over a
// websocket are not sent again.
func (r *Responder) firstEnvelope(id string) bool {
	if id == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
	defer cancel()
	first, err := r.firstSeen(ctx, "envelope:"+id)
	if err != nil {
		r.log.Warn("askuser slack: the notes of the envelopes already taken could not be read; the envelope is taken", "err", err)
		return true
	}
	return first
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
