// Package tui is askuser's full-screen terminal responder: a keyboard-driven
// card drawn with Bubble Tea, on which a person answers every question of
// an ask — tab by tab, in any order, with a review tab before submitting.
// It speaks every contract (ask_user, pi-ask, pi, and forms built in Go),
// with the pi-ask keyboard model. A program asks through it with
//
//	r := tui.New(os.Stdin, os.Stderr, &tui.Options{NoColor: os.Getenv("NO_COLOR") != ""})
//	defer r.Close()
//	o := &askuser.Orchestrator{Responder: r}
//
// and, where Usable says the terminal cannot draw a screen (a pipe, TERM
// unset or "dumb"), uses the line-based responders/stdio instead, as the
// askuser command does.
//
// # The card
//
// The card has a tab per question and a review tab. Each tab is named by
// the question's header and marked ✓ (confirmed: the orchestrator holds
// the answer), • (an answer not confirmed yet) or ○ (nothing). A choice
// lists its options, numbered, "(•)" or "[x]" on those picked, the
// recommended ones marked "(recommended)", and, where free text is
// allowed, a last row for one's own answer (the question's OtherLabel, or
// "Something else"). A preview goes beside the options from 90 columns,
// under them on a narrower terminal. A text question is an editor. The
// review tab lists every answer and what is still open, with Submit,
// Decline (not for the pi contract, which has no decline) and Cancel. From
// the form's NudgeAt a countdown says how long is left and what the
// deadline will apply. When an ask ends, what it came to (what was applied
// and who decided) is shown, and printed again on the terminal once the
// screen is given back.
//
// # Keys
//
// Tab, Shift+Tab, Left and Right move between the tabs; Up and Down
// between the rows; 1 to 9 pick the matching row (a single choice: pick
// and confirm; a multi-select: toggle); Space selects or toggles the row
// under the cursor; Enter confirms the tab and moves on (on the free-text
// row it opens the editor, on the review tab it does what the button
// under the cursor says); n edits the note on the option under the
// cursor and Shift+N the question's note, where the contract carries
// them; Esc dismisses the ask; Ctrl+C dismisses it at once, even while
// editing. PgDn and PgUp switch between pending asks.
//
// In the editor Enter saves and confirms (on a multi-select, saves and
// selects the text and stays); Esc keeps the text as a draft and closes
// the editor; Ctrl+C dismisses the ask without saving. While the editor
// holds text the arrows and Tab stay in it; while it is empty, Up and Down
// and the tab keys navigate as if it were closed. Alt+Enter or Ctrl+J
// starts a new line in a multi-line text question.
//
// # What reaches the orchestrator
//
// A confirmed tab is reported with Ask.Report at once; picks and text not
// confirmed yet are reported with Ask.Draft as the person makes them, so
// that a deadline keeps what the person did where the question's
// OnDeadline says so. Submit reports what every tab shows and submits; a
// refused answer, or a required question still open, shows that tab with
// the reason.
//
// # Secrets
//
// A secret or sensitive question is typed in a masked field that shows
// only whether something has been typed; a sensitive choice shows its
// options and takes the pick as numbers typed in the field, so that no
// frame shows which was picked. The value is handed over as a
// secret.Value, never drafted, and the bytes are wiped. Secrets are
// collected only when the input is a real terminal and Bubble Tea keeps
// no trace log of the keys (TEA_TRACE unset); otherwise the responder
// reports, through askuser.SecretCapable, that it cannot collect them.
//
// # Approvals
//
// An approval (approvaltool.Form, the request_approval contract) gets a
// card of its own, with no tabs: the risk on a line of its own that never
// scrolls away, in words ("!!! Risk: IRREVERSIBLE: this cannot be undone
// !!!", "!! Risk: HIGH", "Risk: medium", "Risk: low") and, with colour,
// in colour (irreversible white on red); the action, the reason, and the
// agent's narration; the details behind d (j and k, or Shift+Down and
// Shift+Up, scroll long ones); a "for this session" box (s); Approve and
// Deny; and a note (n). Nothing is chosen when the card comes on screen,
// every time it does: Up and Down choose, Enter does what is chosen, and
// Enter on nothing, a number or y decide nothing. Approve shows a code of
// five characters drawn at random for the card (such as "Approve this
// once (then type the code K7MXA)"), and Enter on it opens a field in
// which the person types the code, in either case, before Enter
// approves: a program that shares the terminal can type into it (TIOCSTI)
// but cannot read it, so no sequence of keys it can type approves. A
// wrong code draws a new one and asks again, once; a second one denies
// this once, and every wrong code makes the codes after it one character
// longer. Where the system lets programs type into a terminal (on Linux,
// /proc/sys/dev/tty/legacy_tiocsti reads 1), the card says so. Esc and
// Ctrl+C dismiss the approval, which leaves it unresolved. The decision
// is reported and submitted at once, with the note; nothing is drafted,
// so that an Approve chosen and not done never counts. The verdict
// (approvaltool.VerdictOf) is shown when the approval ends. The
// responder takes approvals only when its input and its output are real
// terminals (CanTakeApprovals, askuser.ApprovalCapable); keys typed on it
// before the screen came up are discarded.
//
// # Several asks
//
// Asks pending at the same time share one screen: a line counts them and
// PgDn/PgUp switch; when one ends, the next is shown with a line saying
// what the one before came to, and their deadlines keep running. The
// screen is put up with the first pending ask and given back after the
// last, with the terminal as it was.
//
// # Security
//
// Everything the card shows that a model wrote — the title, the agent's
// narration, headers, question texts, labels, descriptions, previews,
// prefills, a secret's purpose and name, an approval's action, reason and
// details, the orchestrator's reasons — is
// made inert first (see internal/inert, shared with responders/stdio):
// control characters, escape sequences, C1 and bidi controls, invisible
// format characters and invalid UTF-8 are shown as visible escapes, so
// that a call cannot move the cursor, redraw the card, set the clipboard
// or hide text; a no-break space is drawn as a space. A question's text
// keeps its lines, and every line of model text after its first — a later
// line, or a piece of a line the card wraps (a question's first line, the
// action, the reason, a summary) — starts with "│ ", which none of the
// card's own rows starts with, so that text padded to the card's width
// cannot pose as a row of the card (the rest of a wrapped line of the
// details starts with "┆ "). What the person types or pastes is made
// inert as it is typed.
//
// # Compatibility
//
// The responder draws only on the writer it is given (the askuser command
// gives it standard error, so that standard output carries the result
// alone), and installs no signal handler: the embedding
// program handles signals (Ctrl+C reaches the card as a key, since the
// terminal is in raw mode).
package tui
