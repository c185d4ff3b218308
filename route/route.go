package route

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// A Route says who is asked and how an ask moves on when nobody answers:
// its Steps begin in order, each reaching more responders and people, and
// the whole sequence may be run again Repeat times. An approval routed
// here is decided by Quorum when it has one (see Decide), and by the
// first person who decides otherwise, as without a route.
//
// A Route is a value: the orchestrator snapshots it, as JSON, into the
// pending record when the ask begins, so that a restart or another
// replica goes on with the same steps at the same times, whatever the
// configuration says by then. Its JSON is stable: the fields are written
// in the order of the struct, durations as Go duration strings ("2m0s"),
// and nothing is a map.
type Route struct {
	// Name names the route in the configuration, the journal and the
	// words shown to the people asked. It may be empty for a route built
	// in Go.
	Name string `json:"name,omitempty"`
	// Steps are the stages of the ask, in order; at least one. The
	// first begins when the ask begins; each later one begins when its
	// After has passed (see Step). A step adds responders and people: it
	// never takes the ask from those an earlier step reached, and what
	// was answered so far is kept and shown to the newcomers.
	Steps []Step `json:"steps"`
	// Repeat is how many more times the steps run after the last one
	// began (0: once only). A repeat tells every step's responders and
	// people again, as a reminder, with the same delays; it reaches
	// nobody new. It is what an on-call rotation calls "repeat the
	// escalation policy N times".
	Repeat int `json:"repeat,omitempty"`
	// RepeatAfter is how long after the last step began a repeat begins
	// again with the first step. Required (positive) when Repeat > 0;
	// zero otherwise.
	RepeatAfter Duration `json:"repeat_after,omitempty"`
	// Quorum, when set, decides an approval routed here: how many of
	// whom must approve, and who can never approve. It does not apply to
	// questions. A request may carry its own policy, which then replaces
	// this one. The policy is part of the action digest (ActionDigest).
	Quorum *Quorum `json:"quorum,omitempty"`
}

// A Step is one stage of a route: the responders (channels) and people it
// reaches, and when it begins.
type Step struct {
	// Responders name the channels the step tells, as KIND or
	// KIND:TARGET (see Channel): "card", "slack:#ops", "email". A channel
	// of kind only ("email") reaches the step's People through it; a
	// channel with a target ("slack:#ops") reaches whoever reads the
	// target.
	Responders []string `json:"responders,omitempty"`
	// People are the principals ("lead@example.com") and groups
	// ("group:sre") the step reaches, by the step's channels, or by
	// whatever channel the program knows for them when the step names
	// none. Being reached does not make anyone eligible to approve:
	// Quorum says who is.
	People []string `json:"people,omitempty"`
	// After is the delay before this step begins, counted from From.
	// The first step begins with the ask: its After is zero and its From
	// empty.
	After Duration `json:"after,omitempty"`
	// From is what After counts from: AnchorPrevious (the default: when
	// the step before this one began), AnchorStart (when the ask began)
	// or AnchorNudge (the ask's nudge_at, when a responder shows its
	// countdown). A route that repeats counts every delay from the
	// previous step.
	From Anchor `json:"from,omitempty"`
}

// An Anchor is what a step's delay counts from.
type Anchor string

// The anchors a step's delay counts from.
const (
	// AnchorPrevious counts from when the previous step began. The zero
	// Anchor means the same.
	AnchorPrevious Anchor = "previous"
	// AnchorStart counts from when the ask began (asked_at).
	AnchorStart Anchor = "start"
	// AnchorNudge counts from the ask's nudge_at.
	AnchorNudge Anchor = "nudge"
)

// Limits on a route, checked by Check.
const (
	// MaxSteps is the most steps a route may have.
	MaxSteps = 16
	// MaxRepeat is the most a route may repeat.
	MaxRepeat = 100
	// MaxDelay is the longest delay of a step or a repeat.
	MaxDelay = Duration(7 * 24 * time.Hour)
	// MaxPeople is the most people (and groups) one step may reach.
	MaxPeople = 64
)

// ChannelKinds are the kinds of channel a step may name, with what each
// is: the card (responders/web), the terminal card (responders/tui), the
// line terminal (responders/stdio), an MCP client (responders/mcp), Slack
// and email (the responders of those names, where the program has them),
// and a webhook the program registered by name.
var ChannelKinds = []string{"card", "tui", "stdio", "mcp", "slack", "email", "webhook"}

// A Channel is a step's responder name split into its kind and target:
// "slack:#ops" is Channel{Kind: "slack", Target: "#ops"}.
type Channel struct {
	Kind   string
	Target string
}

// ParseChannel splits a responder name, KIND or KIND:TARGET, and checks
// that KIND is one of ChannelKinds and TARGET, when given, is non-empty
// and has no space or control character. card, tui, stdio and mcp take no
// target.
func ParseChannel(name string) (Channel, error) {
	kind, target, hasTarget := strings.Cut(name, ":")
	known := false
	for _, k := range ChannelKinds {
		if k == kind {
			known = true
		}
	}
	if !known {
		return Channel{}, fmt.Errorf("%q is not a channel; allowed: %s, each alone or as KIND:TARGET (slack:#ops, email:lead@example.com, webhook:NAME)", name, strings.Join(ChannelKinds, ", "))
	}
	if !hasTarget {
		if kind == "webhook" {
			return Channel{}, fmt.Errorf("%q names no webhook; write webhook:NAME", name)
		}
		return Channel{Kind: kind}, nil
	}
	switch kind {
	case "card", "tui", "stdio", "mcp":
		return Channel{}, fmt.Errorf("%q: a %s channel takes no target; write %s alone", name, kind, kind)
	}
	if target == "" || strings.ContainsFunc(target, badNameRune) {
		return Channel{}, fmt.Errorf("%q: the target after %s: must be non-empty, without spaces or control characters", name, kind)
	}
	return Channel{Kind: kind, Target: target}, nil
}

// badNameRune reports the runes no name in a route may contain: white
// space and control characters.
func badNameRune(r rune) bool {
	return r <= ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == 0xfeff
}

// CheckPerson checks a step's person: a principal (any name without white
// space or control characters, at most 256 bytes, not starting with
// "group:") or a group ("group:NAME", NAME of lowercase letters, digits,
// '-' and '_').
func CheckPerson(p string) error {
	if g, ok := strings.CutPrefix(p, "group:"); ok {
		if !isToken(g) {
			return fmt.Errorf("%q: a group name after group: must be 1-64 lowercase letters, digits, '-' or '_'", p)
		}
		return nil
	}
	return checkPrincipal(p)
}

func checkPrincipal(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("a principal must not be empty")
	case len(p) > 256:
		return fmt.Errorf("a principal must not exceed 256 bytes; it has %d", len(p))
	case strings.ContainsFunc(p, badNameRune):
		return fmt.Errorf("%q: a principal must not contain spaces or control characters", p)
	case strings.HasPrefix(p, "group:"):
		return fmt.Errorf("%q is a group, not a principal", p)
	}
	return nil
}

// isToken reports whether s is a name of 1-64 lowercase letters, digits,
// '-' and '_'.
func isToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Check reports the first thing wrong with r, naming the field
// (steps[1].after) and what is allowed; nil when r can be used. A route
// built in Go should be checked once, when it is configured; the routes
// file's parser checks every route it reads.
func (r Route) Check() error {
	if len(r.Steps) == 0 {
		return fmt.Errorf("steps: a route needs at least one step")
	}
	if len(r.Steps) > MaxSteps {
		return fmt.Errorf("steps: a route may have at most %d steps, not %d", MaxSteps, len(r.Steps))
	}
	for i, s := range r.Steps {
		if err := r.checkStep(i, s); err != nil {
			return err
		}
	}
	if err := r.checkOrder(); err != nil {
		return err
	}
	switch {
	case r.Repeat < 0 || r.Repeat > MaxRepeat:
		return fmt.Errorf("repeat: must be between 0 and %d, not %d", MaxRepeat, r.Repeat)
	case r.Repeat > 0 && r.RepeatAfter <= 0:
		return fmt.Errorf("repeat_after: a route that repeats needs the delay after which it begins again (a duration such as 15m)")
	case r.Repeat == 0 && r.RepeatAfter != 0:
		return fmt.Errorf("repeat_after: given, but the route does not repeat; set repeat or remove repeat_after")
	case r.RepeatAfter < 0 || r.RepeatAfter > MaxDelay:
		return fmt.Errorf("repeat_after: must be between 1s and %s, not %s", MaxDelay, r.RepeatAfter)
	case r.RepeatAfter%Duration(time.Second) != 0:
		return fmt.Errorf("repeat_after: must be a whole number of seconds, not %s", r.RepeatAfter)
	}
	if r.Quorum != nil {
		if err := r.Quorum.Check(); err != nil {
			return fmt.Errorf("quorum.%w", err)
		}
	}
	return nil
}

func (r Route) checkStep(i int, s Step) error {
	at := fmt.Sprintf("steps[%d]", i)
	if len(s.Responders) == 0 && len(s.People) == 0 {
		return fmt.Errorf("%s: a step must name responders, people, or both", at)
	}
	for j, name := range s.Responders {
		if _, err := ParseChannel(name); err != nil {
			return fmt.Errorf("%s.responders[%d]: %v", at, j, err)
		}
	}
	if len(s.People) > MaxPeople {
		return fmt.Errorf("%s.people: a step may reach at most %d people or groups, not %d", at, MaxPeople, len(s.People))
	}
	for j, p := range s.People {
		if err := CheckPerson(p); err != nil {
			return fmt.Errorf("%s.people[%d]: %v", at, j, err)
		}
	}
	switch s.From {
	case "", AnchorPrevious, AnchorStart, AnchorNudge:
	default:
		return fmt.Errorf("%s.from: %q is not an anchor; allowed: previous (the default), start, nudge", at, string(s.From))
	}
	if i == 0 {
		if s.After != 0 || (s.From != "" && s.From != AnchorPrevious) {
			return fmt.Errorf("%s: the first step begins with the ask; it takes no after or from", at)
		}
		return nil
	}
	switch {
	case s.After < 0 || s.After > MaxDelay:
		return fmt.Errorf("%s.after: must be between 0s and %s, not %s", at, MaxDelay, s.After)
	case s.After%Duration(time.Second) != 0:
		return fmt.Errorf("%s.after: must be a whole number of seconds, not %s", at, s.After)
	case s.After == 0 && s.anchor() == AnchorPrevious:
		return fmt.Errorf("%s.after: a step that begins with the previous one is the same step; give a delay such as 2m, or merge the two", at)
	case r.Repeat > 0 && s.anchor() != AnchorPrevious:
		return fmt.Errorf("%s.from: a route that repeats counts every delay from the previous step; remove from: %s, or repeat", at, s.From)
	}
	return nil
}

// checkOrder refuses a step that would begin before the one before it,
// where that can be known without the ask (steps counted from the nudge
// depend on its timeout, and begin no earlier than the step before them).
func (r Route) checkOrder() error {
	var at, prev Duration // since the start, while known
	known := true
	for i, s := range r.Steps[1:] {
		switch s.anchor() {
		case AnchorPrevious:
			at = prev + s.After
		case AnchorStart:
			at = s.After
			if known && at <= prev {
				return fmt.Errorf("steps[%d].after: %s after the start is not after steps[%d], which begins %s after the start; steps begin in order", i+1, s.After, i, prev)
			}
			known = true
		case AnchorNudge:
			known = false
		}
		prev = at
	}
	return nil
}

func (s Step) anchor() Anchor {
	if s.From == "" {
		return AnchorPrevious
	}
	return s.From
}

// Times are the instants of an ask that a route's delays count from, as
// stamped on the normalized call.
type Times struct {
	Start   time.Time // asked_at
	Nudge   time.Time // nudge_at
	Expires time.Time // expires_at
}

// A Begin is one step beginning: which pass (0, then 1 to Repeat), which
// step, and when.
type Begin struct {
	Pass int       `json:"pass"`
	Step int       `json:"step"`
	At   time.Time `json:"at"`
}

// A Told says which step of an ask's route gave a responder its handle on
// the ask (responder.Told).
type Told struct {
	// Channel is the step's channel as the route names it ("slack:#ops",
	// "email", "email:lead@example.com").
	Channel string
	// Begin is the step's beginning in the route's plan: which pass of the
	// route, which step, and when it began.
	Begin Begin
	// People are the principals the step reaches, its groups expanded.
	People []string
}

// Plan returns every step beginning of r for an ask with these times, in
// order: the first step at Start; each later one at its anchor plus its
// After, and never before the step before it (a step counted from the
// nudge of a short ask begins with the previous step); each repeat
// RepeatAfter after the last step of the pass before. A beginning at or
// after Expires is left out, with every one after it: the deadline ends
// the ask first. Plan is what the orchestrator's durable timers follow:
// the next beginning not yet done is the timer's time (with the deadline
// when it is earlier). r must pass Check.
func (r Route) Plan(t Times) []Begin {
	var out []Begin
	prev := t.Start
	for pass := 0; pass <= r.Repeat; pass++ {
		for i, s := range r.Steps {
			at := prev
			switch {
			case pass == 0 && i == 0:
				at = t.Start
			case i == 0:
				at = prev.Add(r.RepeatAfter.D())
			case s.anchor() == AnchorStart:
				at = t.Start.Add(s.After.D())
			case s.anchor() == AnchorNudge:
				at = t.Nudge.Add(s.After.D())
			default:
				at = prev.Add(s.After.D())
			}
			if at.Before(prev) {
				at = prev
			}
			if !at.Before(t.Expires) {
				return out
			}
			out = append(out, Begin{Pass: pass, Step: i, At: at})
			prev = at
		}
	}
	return out
}

// A Duration is a time.Duration written in JSON as a Go duration string
// ("2m0s"), and read from one ("2m", "90s", "1h30m").
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String writes d as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"2m\" or \"90s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration; write it as 90s, 2m or 1h30m", s)
	}
	*d = Duration(v)
	return nil
}

// A Request is what a route is chosen by: the tool the model called, the
// session, and the risk the model gave (for request_approval; empty for
// questions).
type Request struct {
	Tool    string
	Session string
	Risk    string
}

// A Selector chooses the route for a request: ok is false when none
// applies, and the ask then goes as it would without routes. The
// orchestrator calls it once, when an ask begins; what it returns is
// snapshotted on the ask.
type Selector func(Request) (r Route, ok bool)
