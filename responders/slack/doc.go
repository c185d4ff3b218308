// Package slack is askuser's Slack responder: it posts each ask to a
// channel as a Block Kit message, takes the answers from the buttons and
// modals of the people the program allows, and edits the message, on every
// ending, to say what was decided and by whom.
//
// A program makes one with New (which checks the bot token with auth.test
// and the channel with conversations.info, so that a misconfiguration is
// reported at start, not at the first ask), serves it as the app's
// interactivity endpoint (Request URL: https://HOST/slack/interactivity),
// and puts it in front of the orchestrator:
//
//	r, err := slack.New(ctx, slack.Options{
//		BotToken: botToken, SigningSecret: signingSecret,
//		Channel: "C0123456789", AllowedUsers: []string{"U0123ABCD"},
//	})
//	mux.Handle("POST /slack/interactivity", r)
//	o := &askuser.Orchestrator{Responder: r}
//
// What the person sees: the agent's intent, each question with its options
// and their descriptions, the recommended option marked (and styled primary
// on a single choice), and the deadline in the reader's own time zone with
// what it applies. A single choice is answered with its buttons; anything
// else (several picks, free text, "Something else") through a modal. An
// approval shows the action, why, its risk and the digest of what is
// approved, with Approve and Deny, and "for this session" as separate,
// explicit buttons; an irreversible one asks, in a modal, for a short code
// that the message shows, typed back. A secret never goes through Slack,
// which keeps messages, and neither does a link anyone in the channel
// could follow: the message has an "Answer on the web card" button, and a
// click on it by someone allowed sends them alone, in an ephemeral
// message, a one-time link to the web card for that ask
// (Options.SecretLink, from web.Responder.OneTimeLinks). Without
// SecretLink the question cannot be answered here.
//
// Every request to the endpoint is checked before anything is read from
// it: the X-Slack-Signature over the raw body with the signing secret, a
// timestamp at most five minutes off, and one use of each signed request.
// A click by anyone the program does not allow (Options.AllowedUsers, a
// user group, the workspace) gets an ephemeral "this ask isn't yours" and
// changes nothing. The clicker's verified Slack identity ("slack:T…/U…", or
// what Options.Principal maps it to) is the answer's principal, journaled.
// Every click is acknowledged at once, and the work is done after.
//
// Model-written text reaches Slack only as plain_text, never as mrkdwn,
// with &, < and > escaped and every control, bidi and invisible format
// character made visible, so that no <!channel>, <@U…>, link or formatting
// a model wrote becomes live, in the blocks or in the notification text.
//
// With Options.AppToken the responder takes the interactions over Socket
// Mode instead (a websocket it opens to Slack: no public URL, and it is
// not served as the endpoint); the checks and the answers are the same.
//
// On a fleet (replicas sharing Orchestrator.Asks, behind one
// interactivity URL) give every replica the same Options.Notes: the
// replica that began an ask posts it, once; the message's channel,
// timestamp and confirmation code are noted there, so that a click on any
// replica finds the ask (askuser.Sessions.Find) and the message is edited
// once at every ending, wherever it happened; a replica started again
// holds the asks still posted, and each replica's sweep (every Sweep)
// edits the message of an ask whose replica went away. Signed requests are
// noted create-only, so that a replay to any replica changes nothing.
package slack
