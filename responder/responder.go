// Package responder is what a responder author uses beside the
// askuser.Ask handle: how a question is shown and answered (whether it
// takes free text, whether its answer is sealed and under which name, its
// declared defaults, the secret value of a sensitive choice), a check of an
// answer before it is reported, and where a routed ask stands (its route,
// the step that told this responder, the votes so far, and whether the ask
// began on this process).
//
// Every function reads the ask or the form as the orchestrator does: a card
// that shows a question as free text because FreeText says so is checked by
// the same rule when its answer is reported. The kits for testing a
// responder are in respondertest and scripted.
package responder

import (
	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/hooks"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/secret"
)

// Package askuser set these when it was initialized, which was before this
// package's variables are.
var (
	sealed           = hooks.Sealed.(func(*askuser.Question) bool)
	sealName         = hooks.SealName.(func(*askuser.Question) string)
	freeText         = hooks.FreeText.(func(*askuser.Question) bool)
	declaredDefaults = hooks.DeclaredDefaults.(func(*askuser.Question) []string)
	choiceSecret     = hooks.ChoiceSecret.(func(*askuser.Question, []string, string) secret.Value)
	checkAnswer      = hooks.CheckAnswer.(func(*askuser.Form, askuser.Answer) error)
	routeOf          = hooks.Route.(func(*askuser.Ask) (route.Route, bool))
	told             = hooks.Told.(func(*askuser.Ask) (route.Told, bool))
	through          = hooks.Through.(func(*askuser.Ask, string) *askuser.Ask)
	votes            = hooks.Votes.(func(*askuser.Ask) *route.Verdict)
	beganHere        = hooks.BeganHere.(func(*askuser.Ask) bool)
)

// Sealed reports whether q's answer is a secret value that the orchestrator
// seals: a secret question, or a sensitive one. A responder hands such an
// answer over as Answer.Secret and never shows it back.
func Sealed(q *askuser.Question) bool { return sealed(q) }

// SealName is the name q's sealed answer is stored under: its SecretName,
// or else its ID. The model reads it as the reference "session:<name>".
func SealName(q *askuser.Question) string { return sealName(q) }

// FreeText reports whether q accepts free text: a text question, or a
// choice question that allows Other. A secret question's value is not free
// text.
func FreeText(q *askuser.Question) bool { return freeText(q) }

// DeclaredDefaults returns the values of q's declared defaults: the options
// marked Default, in option order, or else the first option. Text and
// secret questions, and questions marked NoDefault, have none. They are
// what the deadline applies, and what a card marks as recommended.
func DeclaredDefaults(q *askuser.Question) []string { return declaredDefaults(q) }

// ChoiceSecret returns the secret value a responder hands over for a choice
// answer to a sensitive question: for a single-select, the picked option's
// label, or else the free text as typed; for a multi-select, the JSON array
// of the picked options' labels in pick order, with the free text (as
// typed) last. values name options as Answer.Selected does; a value no
// option has is kept as it is, to be refused by the checks. Blank free text
// counts as absent.
func ChoiceSecret(q *askuser.Question, values []string, other string) secret.Value {
	return choiceSecret(q, values, other)
}

// CheckAnswer checks one answer against the form it answers, as the
// orchestrator does when a responder reports it (Ask.Report, Ask.Draft), so
// that a responder can ask again before it reports. It returns nil or an
// *askuser.AnswerError whose Reason a person can read:
//   - the question was asked;
//   - each selected value was offered, exactly, once, and a single-select
//     carries at most one;
//   - free text is trimmed, and blank counts as absent; non-blank free text
//     needs a question that allows it;
//   - the answer says something (a selection or free text; on an optional
//     question a note alone will do);
//   - a secret or sensitive question's answer carries only its secret value
//     (for a sensitive multi-select, a JSON array of strings: see
//     ChoiceSecret), which is not blank (empty after trimming white space)
//     and holds no NUL byte, and no other answer carries one;
//   - where the question has OtherExclusive, picked options and free text
//     do not come together;
//   - notes on options (OptionNotes) are on selected options only;
//   - free text and notes that look like a credential are refused, naming
//     the look-alike, never echoing it (sealed answers are exempt).
func CheckAnswer(f *askuser.Form, ans askuser.Answer) error { return checkAnswer(f, ans) }

// Route returns the route a takes, snapshotted when it began (its groups
// expanded), and whether it takes one (askuser.Orchestrator.Routes).
func Route(a *askuser.Ask) (route.Route, bool) { return routeOf(a) }

// Told reports, for the handle a route's later step gave one of its
// channels (askuser.Orchestrator.Channels), which step and channel that
// is; false for any other handle. A step is told on one replica of a fleet
// — the one whose timer began it, which need not be the one that began the
// ask (BeganHere reports false there) — so a responder that posts each ask
// once posts a step's handle once per step and channel instead, wherever it
// is told, to the step's target ("slack:#ops" names #ops).
func Told(a *askuser.Ask) (route.Told, bool) { return told(a) }

// Through returns a handle on a for the channel a step of its route names,
// as the route names it ("slack:#ops"): what is reported through it comes
// by that channel — the result's answered_via, a vote's via — as through
// the handle the step gave the channel (Told reports the first step that
// names it). A responder that finds an ask (askuser.Sessions.Find) for a
// message or a link a step's handle made answers through it. For a channel
// no step of the ask's route names, Through returns a itself.
func Through(a *askuser.Ask, channel string) *askuser.Ask { return through(a, channel) }

// Votes returns the votes a routed approval has taken so far, in order,
// each as the quorum counts it (see route.Decide): what a responder shows
// the others ("1 of 2 approved: alice via slack"). It returns nil for an
// ask no quorum decides.
func Votes(a *askuser.Ask) *route.Verdict { return votes(a) }

// BeganHere reports whether a is the handle of the process that began the
// ask: always, without a shared store (askuser.Orchestrator.Asks); on a
// fleet, on the replica where the caller asked only. A responder that posts
// each ask once (a Slack message, a mail) posts it from the handle for
// which BeganHere reports true, and finds it elsewhere with
// askuser.Sessions.Find.
func BeganHere(a *askuser.Ask) bool { return beganHere(a) }

// Optional finds an optional interface T of a responder (askuser.Presence,
// askuser.EventDriven, askuser.Named, …) on r or down its chain of
// Unwrap() askuser.Responder, as the orchestrator looks for it: the first
// responder of the chain that implements T answers for the whole chain. A
// responder that hands asks to another (a card it composes, a fan-out)
// looks the other's capabilities up with it, so that a wrapper hides none.
// A chain longer than 64 is taken for a cycle, and T is not found.
func Optional[T any](r askuser.Responder) (T, bool) {
	for range 64 {
		if r == nil {
			break
		}
		if t, ok := r.(T); ok {
			return t, true
		}
		w, ok := r.(interface{ Unwrap() askuser.Responder })
		if !ok {
			break
		}
		r = w.Unwrap()
	}
	var zero T
	return zero, false
}
