// Package email is askuser's email responder: it mails each ask to a
// mailbox, with a plain-text and an HTML part, and takes the answer through
// signed, single-use, expiring links.
//
// A link never decides by being fetched: mail scanners fetch every link in a
// message, and some run its JavaScript. A link opens a confirm page that
// shows the question and the option (or the action, with its digest), with
// one button that POSTs; only the POST decides. A link that was used, or has
// expired, or whose ask has ended, says so and changes nothing. A choice
// question alone in its ask, with at most four options, gets one link per
// option; anything else links to the web card (Options.CardURL).
//
// An email address is a mailbox, not a person: whoever reads the mail (a
// shared inbox, a forwarding rule) holds the links. So an approval is taken
// here only when the program says how the confirm page verifies more than
// the mailbox: Options.Authorize (the web card's sign-in, say), or a code
// sent separately (Options.SendCode: a text message, a chat, another
// mailbox), which the confirm page asks for, refusing a wrong one and,
// after MaxCodeAttempts of them, taking no decision on that approval by
// email. The answer's principal is the mailbox ("mailto:ADDRESS") unless
// Authorize names someone. The command has no flag for SendCode: a
// program gives it in Go.
//
// A program makes one with New (which connects to the SMTP server once, so
// that a misconfiguration is reported at start), mounts it at
// Options.PublicURL + "/email/", and puts it in front of the orchestrator:
//
//	r, err := email.New(ctx, email.Options{SMTPAddr: "smtp.example:587", From: "askuser@example", To: "oncall@example",
//		PublicURL: "https://askuser.example", Key: linkKey})
//	mux.Handle("/email/", r)
//	o := &askuser.Orchestrator{Responder: r}
//
// The mail holds no model-written HTML: every text a model wrote is escaped
// and made inert (controls, bidi and invisible characters visible), and
// there are no remote images. It holds no secret either: an ask with a
// secret question links to the web card with a one-time link for that ask
// (Options.SecretLink, from web.Responder.OneTimeLinks), never with the
// session's card URL, and without SecretLink it is not answered by email.
//
// The links are signed with Options.Key and name their ask and session;
// their single use is noted create-only in Options.Notes. On a fleet
// (replicas sharing Orchestrator.Asks) give every replica the same Key and
// Notes: the replica that began an ask mails it, once, and a link followed
// on any replica finds the ask (askuser.Sessions.Find) and decides once.
// An approval's code (Options.SendCode) is noted there too, as its digest
// and the attempts left, each wrong code counted by a compare-and-set: a
// confirm page on any replica checks it, and MaxCodeAttempts holds across
// the fleet.
package email
