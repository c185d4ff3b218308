package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/slack"
	"github.com/askuser-go/askuser/store"
)

// maxSlackSecretBytes caps the Slack token and secret files: each holds one
// line.
const maxSlackSecretBytes = 4 << 10

// slackFlags are the --slack-* flags of serve, ask and approve.
type slackFlags struct {
	botTokenFile, signingSecretFile, appTokenFile string
	channel, allowedUsers, allowedGroup, apiURL   string
}

func (f *slackFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.botTokenFile, "slack-bot-token-file", "", "the Slack app's bot token (xoxb-…) is in `FILE`, mode 0600; with it, asks are posted to --slack-channel (docs/slack.md)")
	fs.StringVar(&f.signingSecretFile, "slack-signing-secret-file", "", "the Slack app's signing secret is in `FILE`, mode 0600: every request Slack sends is verified with it")
	fs.StringVar(&f.appTokenFile, "slack-app-token-file", "", "use Socket Mode (no public URL) with the app-level token (xapp-…) in `FILE`, mode 0600, instead of serving POST /slack/interactivity")
	fs.StringVar(&f.channel, "slack-channel", "", "post the asks to the Slack channel `ID` (C…), which the bot is a member of")
	fs.StringVar(&f.allowedUsers, "slack-allowed-users", "", "only these Slack users may answer: `U1,U2` (user ids); anyone else's click changes nothing")
	fs.StringVar(&f.allowedGroup, "slack-allowed-usergroup", "", "only the members of the Slack user group `ID` (S…) may answer (the token needs usergroups:read)")
	fs.StringVar(&f.apiURL, "slack-api-url", "", "Slack's Web API is at `URL` (for tests and Slack-compatible servers; default: Slack's)")
}

// given reports whether any --slack-* flag is set.
func (f *slackFlags) given() bool {
	return *f != slackFlags{}
}

// check refuses --slack-* flags that do not go together.
func (f *slackFlags) check() error {
	switch {
	case f.botTokenFile == "":
		return errors.New("--slack-bot-token-file FILE is required with Slack: the app's bot token (xoxb-…)")
	case f.signingSecretFile == "" && f.appTokenFile == "":
		return errors.New("--slack-signing-secret-file FILE is required with Slack's interactivity endpoint (or give --slack-app-token-file FILE for Socket Mode)")
	case f.channel == "":
		return errors.New("--slack-channel ID is required with Slack: the channel's id, C…")
	case f.allowedUsers == "" && f.allowedGroup == "":
		return errors.New("say who may answer in Slack: --slack-allowed-users U1,U2 or --slack-allowed-usergroup S1 (anyone in a channel can click)")
	case f.allowedUsers != "" && f.allowedGroup != "":
		return errors.New("give --slack-allowed-users or --slack-allowed-usergroup, not both")
	case f.apiURL != "" && !strings.HasPrefix(f.apiURL, "http://") && !strings.HasPrefix(f.apiURL, "https://"):
		return fmt.Errorf("--slack-api-url %q must be an http:// or https:// URL", f.apiURL)
	}
	for _, u := range f.users() {
		if !slackID(u) {
			return fmt.Errorf("--slack-allowed-users: %q is not a Slack user id (U… or W…, letters and digits)", u)
		}
	}
	return nil
}

func (f *slackFlags) users() []string {
	var out []string
	for _, u := range strings.Split(f.allowedUsers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

func slackID(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// open reads the token files and makes the responder, which checks them
// against Slack (auth.test, the channel, the user group) at once.
func (f *slackFlags) open(ctx context.Context, logger *slog.Logger, secretLink func(*askuser.Ask, string) (string, error), notes store.Notes) (*slack.Responder, error) {
	token, err := readSecretFile("--slack-bot-token-file", f.botTokenFile)
	if err != nil {
		return nil, err
	}
	opts := slack.Options{BotToken: token, Channel: f.channel, AllowedUsers: f.users(), AllowedUserGroup: f.allowedGroup, SecretLink: secretLink, Logger: logger, Notes: notes}
	if f.signingSecretFile != "" {
		if opts.SigningSecret, err = readSecretFile("--slack-signing-secret-file", f.signingSecretFile); err != nil {
			return nil, err
		}
	}
	if f.appTokenFile != "" {
		if opts.AppToken, err = readSecretFile("--slack-app-token-file", f.appTokenFile); err != nil {
			return nil, err
		}
	}
	if f.apiURL != "" {
		opts.APIURL = strings.TrimRight(f.apiURL, "/") + "/"
	}
	return slack.New(ctx, opts)
}
