package askuser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Normalize checks a call built in Go and returns its normalized copy, as
// Orchestrator.Ask does; c itself is not changed. It holds a Go-built call
// to the model's own rules (SPEC §7), which every contract's calls also
// meet:
//   - at least one question; a secret question is the only one;
//   - ids unique; a missing id becomes question_<p> (with _2, _3, … when
//     taken), as in ask_user;
//   - an empty Kind is a choice; a choice offers at least one option; text
//     and secret questions offer none;
//   - option labels are non-blank; an empty Value is the label; values are
//     unique within their question; a single-select marks at most one
//     default;
//   - a secret question has a SecretName;
//   - TimeoutSeconds is 0 (the ceiling) or between 1 and the ceiling.
//
// Go's zero values are taken as written: AllowOther false means no free
// text on a choice (ask_user's JSON default of true applies to JSON calls
// only). The error says what is wrong and what is allowed.
func Normalize(c *Call, lim Limits) (*Call, error) {
	lim = lim.withDefaults()
	if c == nil || len(c.Questions) == 0 {
		return nil, errors.New("askuser: invalid call: it has no questions; give at least one")
	}
	out := *c
	out.Questions = make([]Question, len(c.Questions))
	copy(out.Questions, c.Questions)
	if out.Contract == "" {
		out.Contract = "go"
	}
	switch t := out.TimeoutSeconds; {
	case t == 0:
		out.TimeoutSeconds = lim.MaxTimeoutSeconds
	case t < 0 || t > lim.MaxTimeoutSeconds:
		return nil, fmt.Errorf("askuser: invalid call: TimeoutSeconds is %d; allowed: 0 (the ceiling) or 1 to %d", t, lim.MaxTimeoutSeconds)
	}
	for i := range out.Questions {
		q := &out.Questions[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("askuser: invalid call: question %d: %s", i+1, fmt.Sprintf(format, args...))
		}
		if q.ID != "" && strings.TrimSpace(q.ID) == "" {
			return nil, bad("the id is blank; give a non-blank id or none")
		}
		for j := range i {
			if q.ID != "" && out.Questions[j].ID == q.ID {
				return nil, bad("the id %q is taken by question %d; ids must be unique", q.ID, j+1)
			}
		}
		if strings.TrimSpace(q.Text) == "" {
			return nil, bad("the question text is empty")
		}
		if q.Kind == "" {
			q.Kind = KindChoice
		}
		switch q.Kind {
		case KindChoice:
			if len(q.Options) == 0 {
				return nil, bad("a choice needs at least one option")
			}
		case KindText:
			q.AllowOther, q.MultiSelect = true, false
			if len(q.Options) > 0 {
				return nil, bad("a text question offers no options")
			}
		case KindSecret:
			q.AllowOther, q.MultiSelect = false, false
			if len(out.Questions) > 1 {
				return nil, bad("a secret question must be the only question in the call")
			}
			if len(q.Options) > 0 {
				return nil, bad("a secret question offers no options")
			}
			if strings.TrimSpace(q.SecretName) == "" {
				return nil, bad("a secret question needs a SecretName")
			}
		default:
			return nil, bad("kind %q is not a kind; allowed: choice, text, secret", q.Kind)
		}
		if q.SecretName != "" && (utf8.RuneCountInString(q.SecretName) > 255 || strings.TrimSpace(q.SecretName) == "") {
			return nil, bad("SecretName must be between 1 and 255 non-whitespace characters")
		}
		if len(q.Options) > 0 {
			opts := make([]Option, len(q.Options))
			copy(opts, q.Options)
			q.Options = opts
			defaults := 0
			for k := range opts {
				o := &opts[k]
				if strings.TrimSpace(o.Label) == "" {
					return nil, bad("option %d has no label", k+1)
				}
				if o.Value == "" {
					o.Value = o.Label
				}
				for m := range k {
					if opts[m].Value == o.Value {
						return nil, bad("options %d and %d share the value %s; values must be unique", m+1, k+1, strconv.Quote(o.Value))
					}
				}
				if o.Default {
					defaults++
				}
			}
			if defaults > 1 && !q.MultiSelect {
				return nil, bad("a single-select marks at most one default, not %d", defaults)
			}
		}
	}
	for i := range out.Questions {
		if out.Questions[i].ID == "" {
			out.Questions[i].ID = freeID(out.Questions, i)
		}
	}
	return compact(&out), nil
}
