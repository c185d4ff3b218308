package askuser

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/dialect"
)

// Normalize checks a form built in Go and returns its normalized copy, as
// Orchestrator.Handle does with Request.Form; f itself is not changed. It
// holds the form to the model's own rules, which every contract's forms
// also meet (the orchestrator checks each dialect's output the same way):
//   - at least one question; a secret question is the only one;
//   - ids unique; a missing id becomes question_<p> (with _2, _3, … when
//     taken), as in ask_user;
//   - an empty Kind is a choice; a choice offers at least one option or
//     free text (AllowOther); text and secret questions offer none;
//   - option labels are non-blank; an empty Value is the label; values are
//     unique within their question; a single-select marks at most one
//     default;
//   - a secret question has a SecretName of 1 to 255 runes, not all
//     whitespace;
//   - TimeoutSeconds is 0 (the ceiling) or between 1 and the ceiling.
//
// Go's zero values are taken as written: AllowOther false means no free
// text on a choice (ask_user's JSON default of true applies to JSON calls
// only). An invalid form returns a *dialect.CallError, as an invalid call does,
// whose Message says what is wrong and what is allowed.
func Normalize(f *Form, lim dialect.Limits) (*Form, error) {
	lim = lim.WithDefaults()
	if f == nil || len(f.Questions) == 0 {
		return nil, formError("it has no questions; give at least one")
	}
	out := *f
	if f.Approval != nil {
		ap := *f.Approval
		out.Approval = &ap
	}
	out.Questions = make([]Question, len(f.Questions))
	copy(out.Questions, f.Questions)
	if out.Contract == "" {
		out.Contract = "go"
	}
	if out.TimeoutSeconds == 0 {
		out.TimeoutSeconds = lim.MaxTimeoutSeconds
	}
	if out.Unattended == "default" || out.Unattended == "defaults" {
		out.Unattended = FallbackDefaults
	}
	for i := range out.Questions {
		q := &out.Questions[i]
		if q.Kind == "" {
			q.Kind = KindChoice
		}
		if q.OnDeadline == "default" || q.OnDeadline == "defaults" {
			q.OnDeadline = FallbackDefaults
		}
		switch q.Kind {
		case KindText:
			q.AllowOther, q.MultiSelect = true, false
		case KindSecret:
			q.AllowOther, q.MultiSelect = false, false
		}
		if len(q.Options) > 0 {
			opts := make([]Option, len(q.Options))
			copy(opts, q.Options)
			for k := range opts {
				if opts[k].Value == "" {
					opts[k].Value = opts[k].Label
				}
			}
			q.Options = opts
		}
	}
	if err := checkForm(&out, lim, true); err != nil {
		return nil, err
	}
	for i := range out.Questions {
		if out.Questions[i].ID == "" {
			out.Questions[i].ID = freeID(out.Questions, i)
		}
	}
	return compact(&out), nil
}

func formError(msg string) *dialect.CallError {
	return &dialect.CallError{Message: "askuser: invalid call: " + msg}
}

// checkForm checks a form against the model's rules. With idsMayBeEmpty a
// missing id is allowed (Normalize generates it); a dialect's form must
// carry every id.
func checkForm(f *Form, lim dialect.Limits, idsMayBeEmpty bool) error {
	lim = lim.WithDefaults()
	if len(f.Questions) == 0 {
		return formError("it has no questions; give at least one")
	}
	if t := f.TimeoutSeconds; t < 1 || t > lim.MaxTimeoutSeconds {
		return formError(fmt.Sprintf("TimeoutSeconds is %d; allowed: 0 (the ceiling) or 1 to %d", t, lim.MaxTimeoutSeconds))
	}
	switch f.Unattended {
	case FallbackDefaults, FallbackNothing:
	default:
		return formError(fmt.Sprintf("Unattended is %q; allowed: FallbackDefaults (empty, \"default\" or \"defaults\"), FallbackNothing (\"nothing\")", f.Unattended))
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		bad := func(format string, args ...any) error {
			return formError(fmt.Sprintf("question %d: ", i+1) + fmt.Sprintf(format, args...))
		}
		switch {
		case q.ID == "" && !idsMayBeEmpty:
			return bad("the id is empty; every question needs one")
		case q.ID != "" && strings.TrimSpace(q.ID) == "":
			return bad("the id is blank; give a non-blank id or none")
		}
		for j := range i {
			if q.ID != "" && f.Questions[j].ID == q.ID {
				return bad("the id %q is taken by question %d; ids must be unique", q.ID, j+1)
			}
		}
		if strings.TrimSpace(q.Text) == "" {
			return bad("the question text is empty")
		}
		switch q.Kind {
		case KindChoice:
			if len(q.Options) == 0 && !q.AllowOther {
				return bad("a choice needs at least one option, or AllowOther for a free-text answer")
			}
		case KindText:
			if len(q.Options) > 0 {
				return bad("a text question offers no options")
			}
		case KindApproval:
			// checkApprovalForm below holds it to approvalForm's shape.
		case KindSecret:
			if len(f.Questions) > 1 {
				return bad("a secret question must be the only question in the call")
			}
			if len(q.Options) > 0 {
				return bad("a secret question offers no options")
			}
			if strings.TrimSpace(q.SecretName) == "" {
				return bad("a secret question needs a SecretName")
			}
		default:
			return bad("kind %q is not a kind; allowed: choice, text, secret, approval", q.Kind)
		}
		switch q.OnDeadline {
		case FallbackDefaults, FallbackDraft, FallbackNothing:
		default:
			return bad("OnDeadline is %q; allowed: FallbackDefaults (empty, \"default\" or \"defaults\"), FallbackDraft (\"draft\"), FallbackNothing (\"nothing\")", q.OnDeadline)
		}
		if q.SecretName != "" && (utf8.RuneCountInString(q.SecretName) > 255 || strings.TrimSpace(q.SecretName) == "") {
			return bad("SecretName must be between 1 and 255 non-whitespace characters")
		}
		defaults := 0
		for k := range q.Options {
			o := &q.Options[k]
			if strings.TrimSpace(o.Label) == "" {
				return bad("option %d has no label", k+1)
			}
			if o.Value == "" {
				return bad("option %d has no value", k+1)
			}
			for m := range k {
				if q.Options[m].Value == o.Value {
					return bad("options %d and %d share the value %s; values must be unique", m+1, k+1, strconv.Quote(o.Value))
				}
			}
			if o.Default {
				defaults++
			}
		}
		if defaults > 1 && !q.MultiSelect {
			return bad("a single-select marks at most one default, not %d", defaults)
		}
	}
	return checkApprovalForm(f)
}

// freeID returns question_<i+1>, or with _2, _3, … appended when that is
// taken by another question's id.
func freeID(qs []Question, i int) string {
	base := "question_" + strconv.Itoa(i+1)
	id := base
	for n := 2; idTaken(qs, id); n++ {
		id = base + "_" + strconv.Itoa(n)
	}
	return id
}

func idTaken(qs []Question, id string) bool {
	for k := range qs {
		if qs[k].ID == id {
			return true
		}
	}
	return false
}
