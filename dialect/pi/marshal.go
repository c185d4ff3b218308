package pi

import (
	"errors"
	"strings"

	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/piwire"
)

// MarshalCall writes a call this package decoded back as the contract's
// call, in the form it came in, every default written out: Decode of the
// result gives the same call again.
func MarshalCall(c *askuser.Form) ([]byte, error) {
	var ms int64
	if c.TimeoutSeconds*1000 >= MinTimeoutMs && c.TimeoutSeconds*1000 <= MaxTimeoutMs {
		ms = int64(c.TimeoutSeconds) * 1000
	}
	if stateOf(c).rich {
		if len(c.Questions) != 1 {
			return nil, errors.New("pi: a rich call has one question")
		}
		return marshalRich(&c.Questions[0], ms, stateOf(c).sensitivity)
	}
	qs := make([]piwire.Object, len(c.Questions))
	for i := range c.Questions {
		q := &c.Questions[i]
		if q.Kind != askuser.KindChoice {
			return nil, errors.New("pi: question " + q.ID + " is not a choice question; option questions have options")
		}
		opts := make([]piwire.Object, len(q.Options))
		rec := -1
		for k, o := range q.Options {
			opts[k] = piwire.Object{{Key: "label", Value: o.Label}}
			if o.Default && rec < 0 {
				rec = k
			}
		}
		obj := piwire.Object{{Key: "id", Value: q.ID}, {Key: "question", Value: q.Text}, {Key: "options", Value: opts}, {Key: "multi", Value: q.MultiSelect}}
		if rec >= 0 {
			obj = append(obj, piwire.Pair{Key: "recommended", Value: rec})
		}
		if ms > 0 {
			obj = append(obj, piwire.Pair{Key: "timeoutMs", Value: ms})
		}
		qs[i] = obj
	}
	return wire.Marshal(piwire.Object{{Key: "questions", Value: qs}})
}

func marshalRich(q *askuser.Question, ms int64, sensitivity string) ([]byte, error) {
	question, reason, hasReason := splitReason(q)
	kind := RichKind(q)
	obj := piwire.Object{{Key: "question", Value: question}, {Key: "kind", Value: kind}}
	switch q.Kind {
	case askuser.KindText:
		if q.Prefill != "" {
			obj = append(obj, piwire.Pair{Key: "default", Value: q.Prefill})
		}
	default:
		opts := make([]string, len(q.Options))
		var defs []string
		for k, o := range q.Options {
			opts[k] = o.Label
			if o.Default {
				defs = append(defs, o.Label)
			}
		}
		obj = append(obj, piwire.Pair{Key: "options", Value: opts})
		switch {
		case len(defs) == 0:
		case q.MultiSelect:
			obj = append(obj, piwire.Pair{Key: "default", Value: defs})
		default:
			obj = append(obj, piwire.Pair{Key: "default", Value: defs[0]})
		}
		if ms > 0 {
			obj = append(obj, piwire.Pair{Key: "timeoutMs", Value: ms})
		}
	}
	obj = append(obj, piwire.Pair{Key: "sensitivity", Value: sensitivity})
	if hasReason {
		obj = append(obj, piwire.Pair{Key: "reason", Value: reason})
	}
	return wire.Marshal(obj)
}

// splitReason splits a rich question's text into the question and the
// reason shown under it: the split whose question hashes to the id.
func splitReason(q *askuser.Question) (question, reason string, ok bool) {
	const sep = "\n\nReason: "
	if QuestionID(q.Text) == q.ID {
		return q.Text, "", false
	}
	for i := 0; ; {
		k := strings.Index(q.Text[i:], sep)
		if k < 0 {
			return q.Text, "", false
		}
		i += k
		if QuestionID(q.Text[:i]) == q.ID {
			return q.Text[:i], q.Text[i+len(sep):], true
		}
		i++
	}
}
