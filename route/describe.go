package route

import (
	"fmt"
	"strings"
)

// Describe says r in words, for an operator checking a configuration:
//
//	route oncall: ask on the card; after 2m, also the Slack channel #ops; after 10m more, also lead@example.com by email; repeats 0 times
//
// A quorum adds who must approve and who can veto. r should pass Check.
func (r Route) Describe() string {
	var parts []string
	for i, s := range r.Steps {
		parts = append(parts, s.describe(i))
	}
	switch r.Repeat {
	case 0:
		parts = append(parts, "repeats 0 times")
	case 1:
		parts = append(parts, fmt.Sprintf("repeats 1 time, %s after the last step began", Short(r.RepeatAfter)))
	default:
		parts = append(parts, fmt.Sprintf("repeats %d times, each %s after the last step began", r.Repeat, Short(r.RepeatAfter)))
	}
	if r.Quorum != nil {
		parts = append(parts, r.Quorum.Describe())
	}
	name := r.Name
	if name == "" {
		name = "(unnamed)"
	}
	return "route " + name + ": " + strings.Join(parts, "; ")
}

func (s Step) describe(i int) string {
	reach := s.reach()
	if i == 0 {
		return "ask " + reach
	}
	var when string
	switch s.anchor() {
	case AnchorStart:
		when = Short(s.After) + " after the start"
	case AnchorNudge:
		when = Short(s.After) + " after the nudge"
		if s.After == 0 {
			when = "at the nudge"
		}
	default:
		when = "after " + Short(s.After)
		if i > 1 {
			when += " more"
		}
	}
	return when + ", also " + reach
}

// reach says whom a step reaches and by what.
func (s Step) reach() string {
	people := make([]string, len(s.People))
	for i, p := range s.People {
		if g, ok := strings.CutPrefix(p, "group:"); ok {
			p = "the group " + g
		}
		people[i] = p
	}
	var channels []string
	for _, name := range s.Responders {
		c, err := ParseChannel(name)
		if err != nil {
			channels = append(channels, fmt.Sprintf("%q", name))
			continue
		}
		channels = append(channels, c.words(len(people) > 0))
	}
	switch {
	case len(people) == 0:
		return strings.Join(channels, " and ")
	case len(channels) == 0:
		return strings.Join(people, ", ")
	}
	return strings.Join(people, ", ") + " " + strings.Join(channels, " and ")
}

// words says a channel: after the people it reaches when withPeople, else
// on its own.
func (c Channel) words(withPeople bool) string {
	noun := func(alone, after string) string {
		if withPeople {
			return after
		}
		return alone
	}
	switch c.Kind {
	case "card":
		return "on the card"
	case "tui":
		return "on the terminal card"
	case "stdio":
		return "on the terminal"
	case "mcp":
		return "in the MCP client"
	case "slack":
		switch {
		case c.Target == "":
			return "on Slack"
		case strings.HasPrefix(c.Target, "#"):
			return noun("the Slack channel "+c.Target, "on the Slack channel "+c.Target)
		}
		return noun(c.Target+" on Slack", "on Slack to "+c.Target)
	case "email":
		if c.Target == "" {
			return "by email"
		}
		return noun(c.Target+" by email", "by email to "+c.Target)
	}
	return noun("the webhook "+c.Target, "through the webhook "+c.Target)
}

// Describe says q in words: "approvals need 2 of alice@example.com, the
// group sre (counts once); a deny by any of them ends it denied; the
// requester never approves".
func (q Quorum) Describe() string {
	var who []string
	for _, a := range q.Eligible {
		switch {
		case a.Principal != "":
			who = append(who, a.Principal)
		case a.PerMember:
			who = append(who, fmt.Sprintf("the group %s (each member counts: %s)", a.Group, strings.Join(a.Members, ", ")))
		default:
			who = append(who, fmt.Sprintf("the group %s (counts once: %s)", a.Group, strings.Join(a.Members, ", ")))
		}
	}
	veto := "a deny by any of them ends it denied"
	if q.Veto == VetoAnyone {
		veto = "a deny by anyone who votes ends it denied"
	}
	never := "the requester never approves"
	if q.ExcludeOwner {
		never = "neither the requester nor the session's owner ever approves"
	}
	return fmt.Sprintf("approvals need %d of %s; %s; %s", q.Required, strings.Join(who, ", "), veto, never)
}

// Short writes d as a Go duration without its zero units: "2m", "1h30m",
// "90s" as "1m30s".
func Short(d Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
