package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// askuser mcp --bridge-to slack hands an ask that the person has not
// answered in the MCP client within --bridge-timeout (or whose replies did
// not fit the form) on to a Slack channel, configured by ask's --slack-*
// flags: the tool call returns at once, saying the question went to that
// channel, and a click on the Slack message answers the ask, which is
// journaled once, as any other. Slack's clicks arrive over Socket Mode
// (--slack-app-token-file), or at POST /slack/interactivity on
// --slack-listen ADDR.

// mcpSlack are askuser mcp's Slack flags.
type mcpSlack struct {
	flags  slackFlags
	listen string
}

func (m *mcpSlack) register(fs *flag.FlagSet) {
	m.flags.register(fs)
	fs.StringVar(&m.listen, "slack-listen", "", "with --bridge-to slack, serve Slack's interactivity endpoint, POST /slack/interactivity, on `ADDR` (the Slack app's Request URL leads there); not with Socket Mode (--slack-app-token-file)")
}

// check refuses Slack flags without --bridge-to slack, and --bridge-to
// slack without what it needs.
func (m *mcpSlack) check(bridgeTo string) error {
	if bridgeTo != "slack" {
		if m.flags.given() || m.listen != "" {
			return errors.New("the --slack-* flags configure --bridge-to slack: give it, or leave them out")
		}
		return nil
	}
	if err := m.flags.check(); err != nil {
		return err
	}
	switch {
	case m.flags.appTokenFile == "" && m.listen == "":
		return errors.New("--bridge-to slack needs --slack-listen ADDR, where Slack posts the clicks (POST /slack/interactivity), or Socket Mode with --slack-app-token-file FILE")
	case m.flags.appTokenFile != "" && m.listen != "":
		return errors.New("--slack-listen serves Slack's interactivity endpoint, which Socket Mode (--slack-app-token-file) does without; give one of them")
	}
	return nil
}

// start makes the Slack responder (checked against Slack at once), serves
// its endpoint on --slack-listen, and returns the bridge to it; stop, to
// be called once the orchestrator has ended every ask, ends both.
func (m *mcpSlack) start(ctx context.Context, e env, after time.Duration, logger *slog.Logger) (b *mcpresponder.Bridge, stop func(), err error) {
	var ln net.Listener
	if m.listen != "" {
		if ln, err = net.Listen("tcp", m.listen); err != nil {
			return nil, nil, fmt.Errorf("--slack-listen %s: %w", m.listen, err)
		}
	}
	r, err := m.flags.open(ctx, logger, nil, nil)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, nil, err
	}
	stop = func() { _ = r.Close() }
	if ln != nil {
		mux := http.NewServeMux()
		mux.Handle("POST /slack/interactivity", r)
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
		served := make(chan struct{})
		go func() {
			defer close(served)
			_ = srv.Serve(ln)
		}()
		stop = func() {
			// The acknowledgements under way are delivered: Slack shows
			// an error for a click it had no answer to.
			sctx, cancel := context.WithTimeout(context.Background(), serveStopTimeout)
			defer cancel()
			if srv.Shutdown(sctx) != nil {
				_ = srv.Close()
			}
			<-served
			_ = r.Close()
		}
		host, _ := cardHost(m.listen, ln.Addr().(*net.TCPAddr))
		fmt.Fprintf(e.stderr, "askuser mcp: serving POST http://%s/slack/interactivity for the clicks on the Slack messages\n", host)
	}
	channel := m.flags.channel
	return &mcpresponder.Bridge{After: after, To: r, Where: func(*askuser.Ask) string {
		return "the Slack channel " + channel
	}}, stop, nil
}
