package pi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/piwire"
)

// The bounds of the contract.
const (
	MinTimeoutMs      = 1000
	MaxTimeoutMs      = 300000
	MaxQuestionUnits  = 500 // question and reason, in UTF-16 code units
	MaxOptions        = 20
	MaxOptionUnits    = 200
	TextUnsupported   = "timeoutMs is unsupported for text/editor host dialogs; omit it or use a select question."
	validationHeading = "Validation failed:"
)

// Decisions the contract leaves open, made here:
//
//   - Every schema problem is reported, in the order of the contract's
//     input (questions, then each question's id, question, options,
//     multi, recommended, timeoutMs; question, kind, options, default,
//     timeoutMs, sensitivity, reason), with messages in the style of the
//     original's schema library ("Expected string", "Expected required
//     property", "Expected integer to be less or equal to 300000").
//   - null counts as an absent field; unknown fields are ignored.
//   - A payload that is not JSON, or not an object, is "- /: Expected
//     object"; one over the size cap is "- /: Expected at most N bytes, got
//     M".
//   - An option question's id is kept as given; blank means empty after
//     trimming. Its options may be empty (only the free-text row is then
//     offered) and are valued by their labels.
//   - A rich question must not be empty.

// A Problem is one schema problem of an invalid call.
type Problem struct {
	// Path is the JSON pointer of the problem ("/questions/0/timeoutMs";
	// "/" for the payload itself).
	Path string `json:"path"`
	// Message says what is expected there.
	Message string `json:"message"`
}

type problems []Problem

func (p *problems) add(path, msg string) { *p = append(*p, Problem{path, msg}) }

type fields map[string]json.RawMessage

func present(raw json.RawMessage) bool {
	k := piwire.Kind(raw)
	return k != "" && k != "null"
}

// Decode validates and normalizes a pi ask call.
func (piDialect) Decode(data []byte, lim dialect.Limits) (*askuser.Form, error) {
	lim = lim.WithDefaults()
	var ps problems
	if len(data) > lim.MaxCallBytes {
		ps.add("/", fmt.Sprintf("Expected at most %d bytes, got %d", lim.MaxCallBytes, len(data)))
		return nil, invalid(ps)
	}
	var top fields
	if !json.Valid(data) || piwire.Kind(data) != "object" || json.Unmarshal(data, &top) != nil {
		ps.add("/", "Expected object")
		return nil, invalid(ps)
	}
	if present(top["questions"]) {
		return decodeOptions(top, lim)
	}
	return decodeRich(top, lim)
}

// invalid returns the contract's answer to a call that breaks the schema.
func invalid(ps problems) *dialect.CallError {
	var b strings.Builder
	b.WriteString(validationHeading)
	for _, p := range ps {
		b.WriteString("\n- " + p.Path + ": " + p.Message)
	}
	res := mustMarshal(piwire.NewResult(b.String(), piwire.Object{{Key: "errors", Value: []Problem(ps)}}, true))
	ce := &dialect.CallError{Message: b.String(), Result: res}
	if len(ps) > 0 {
		ce.Path = ps[0].Path
	}
	return ce
}

func mustMarshal(v any) []byte {
	b, err := wire.Marshal(v)
	if err != nil {
		panic(err) // the contract's shapes always marshal
	}
	return b
}

func (ps *problems) str(m fields, key, path string, required bool) (string, bool) {
	raw := m[key]
	if !present(raw) {
		if required {
			ps.add(path, "Expected required property")
		}
		return "", false
	}
	var s string
	if piwire.Kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		ps.add(path, "Expected string")
		return "", false
	}
	return s, true
}

// integer reads an integer field; a number with a fraction, or anything
// else, is a problem.
func (ps *problems) integer(m fields, key, path string) (int64, bool) {
	raw := m[key]
	if !present(raw) {
		return 0, false
	}
	var f float64
	if piwire.Kind(raw) != "number" || json.Unmarshal(raw, &f) != nil || f != float64(int64(f)) {
		ps.add(path, "Expected integer")
		return 0, false
	}
	return int64(f), true
}

func (ps *problems) timeoutMs(m fields, path string) (int64, bool) {
	n, ok := ps.integer(m, "timeoutMs", path)
	switch {
	case !ok:
		return 0, false
	case n < MinTimeoutMs:
		ps.add(path, "Expected integer to be greater or equal to "+strconv.Itoa(MinTimeoutMs))
		return 0, false
	case n > MaxTimeoutMs:
		ps.add(path, "Expected integer to be less or equal to "+strconv.Itoa(MaxTimeoutMs))
		return 0, false
	}
	return n, true
}

// timeoutSeconds turns the longest timeoutMs into the call's wait: whole
// seconds, rounded up, at most the ceiling; the ceiling when none is given.
func timeoutSeconds(ms int64, lim dialect.Limits) int {
	if ms <= 0 {
		return lim.MaxTimeoutSeconds
	}
	s := int((ms + 999) / 1000)
	return min(s, lim.MaxTimeoutSeconds)
}

func decodeOptions(top fields, lim dialect.Limits) (*askuser.Form, error) {
	var ps problems
	var items []json.RawMessage
	switch raw := top["questions"]; {
	case piwire.Kind(raw) != "array" || json.Unmarshal(raw, &items) != nil:
		ps.add("/questions", "Expected array")
	case len(items) == 0:
		ps.add("/questions", "Expected array length to be greater or equal to 1")
	}
	c := &askuser.Form{Contract: Name, DialectData: state{}, Unattended: askuser.FallbackNothing, CancelDropsAnswers: true}
	var longest int64
	ids := map[string]bool{}
	for i, item := range items {
		path := "/questions/" + strconv.Itoa(i)
		var m fields
		if piwire.Kind(item) != "object" || json.Unmarshal(item, &m) != nil {
			ps.add(path, "Expected object")
			continue
		}
		q := askuser.Question{Kind: askuser.KindChoice, OtherLabel: OtherLabel, AllowOther: true, OtherExclusive: true, Optional: true}
		if id, ok := ps.str(m, "id", path+"/id", true); ok {
			switch {
			case strings.TrimSpace(id) == "":
				ps.add(path+"/id", "Expected non-blank string")
			case ids[id]:
				ps.add(path+"/id", `Expected unique id; "`+id+`" is given twice`)
			}
			ids[id] = true
			q.ID, q.Header = id, id
		}
		var ok bool
		if q.Text, ok = ps.str(m, "question", path+"/question", true); ok && strings.TrimSpace(q.Text) == "" {
			ps.add(path+"/question", "Expected non-blank string")
		}
		var opts []json.RawMessage
		switch raw := m["options"]; {
		case !present(raw):
			ps.add(path+"/options", "Expected required property")
		case piwire.Kind(raw) != "array" || json.Unmarshal(raw, &opts) != nil:
			ps.add(path+"/options", "Expected array")
		}
		q.Options = make([]askuser.Option, 0, len(opts))
		for k, raw := range opts {
			opath := path + "/options/" + strconv.Itoa(k)
			var om fields
			if piwire.Kind(raw) != "object" || json.Unmarshal(raw, &om) != nil {
				ps.add(opath, "Expected object")
				continue
			}
			label, ok := ps.str(om, "label", opath+"/label", true)
			if ok && strings.TrimSpace(label) == "" {
				ps.add(opath+"/label", "Expected non-blank string")
			}
			q.Options = append(q.Options, askuser.Option{Value: label, Label: label})
		}
		if raw := m["multi"]; present(raw) {
			if piwire.Kind(raw) != "boolean" {
				ps.add(path+"/multi", "Expected boolean")
			}
			q.MultiSelect = string(raw) == "true"
		}
		distinctValues(q.Options)
		if n, ok := ps.integer(m, "recommended", path+"/recommended"); ok && n >= 0 && n < int64(len(q.Options)) {
			q.Options[n].Default = true
		}
		if n, ok := ps.timeoutMs(m, path+"/timeoutMs"); ok {
			longest = max(longest, n)
		}
		switch {
		case len(q.Options) == 0:
			q.OnDeadline = askuser.FallbackNothing // no option to fall back on
		case q.MultiSelect:
			q.OnDeadline = askuser.FallbackDraft
		default:
			q.OnDeadline = askuser.FallbackDefaults
		}
		c.Questions = append(c.Questions, q)
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}
	c.TimeoutSeconds = timeoutSeconds(longest, lim)
	return c, nil
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }

func decodeRich(top fields, lim dialect.Limits) (*askuser.Form, error) {
	kind := top["kind"]
	var kindS string
	_ = json.Unmarshal(kind, &kindS)
	if piwire.Kind(kind) == "string" && (kindS == KindText || kindS == KindEditor) && present(top["timeoutMs"]) {
		res := mustMarshal(piwire.NewResult(TextUnsupported, piwire.Object{{Key: "status", Value: "unsupported"}, {Key: "source", Value: "ask"}}, true))
		return nil, &dialect.CallError{Path: "/timeoutMs", Message: TextUnsupported, Result: res}
	}
	var ps problems
	question, ok := ps.str(top, "question", "/question", true)
	if ok {
		switch n := units(question); {
		case strings.TrimSpace(question) == "":
			ps.add("/question", "Expected non-blank string")
		case n > MaxQuestionUnits:
			ps.add("/question", "Expected string length less or equal to "+strconv.Itoa(MaxQuestionUnits))
		}
	}
	kindS, ok = ps.str(top, "kind", "/kind", true)
	if ok {
		switch kindS {
		case KindSelect, KindMultiSelect, KindText, KindEditor:
		default:
			ps.add("/kind", `Expected "select", "multi-select", "text" or "editor"`)
		}
	}
	var options []string
	if raw := top["options"]; present(raw) {
		var items []json.RawMessage
		if piwire.Kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
			ps.add("/options", "Expected array")
		} else if len(items) > MaxOptions {
			ps.add("/options", "Expected array length to be less or equal to "+strconv.Itoa(MaxOptions))
		}
		for k, it := range items {
			var s string
			if piwire.Kind(it) != "string" || json.Unmarshal(it, &s) != nil {
				ps.add("/options/"+strconv.Itoa(k), "Expected string")
				continue
			}
			switch {
			case strings.TrimSpace(s) == "":
				ps.add("/options/"+strconv.Itoa(k), "Expected non-blank string")
			case units(s) > MaxOptionUnits:
				ps.add("/options/"+strconv.Itoa(k), "Expected string length less or equal to "+strconv.Itoa(MaxOptionUnits))
			}
			options = append(options, s)
		}
	}
	var defaults []string
	isArray := false
	if raw := top["default"]; present(raw) {
		switch piwire.Kind(raw) {
		case "string":
			var s string
			_ = json.Unmarshal(raw, &s)
			defaults = []string{s}
		case "array":
			isArray = true
			var items []json.RawMessage
			_ = json.Unmarshal(raw, &items)
			for k, it := range items {
				var s string
				if piwire.Kind(it) != "string" || json.Unmarshal(it, &s) != nil {
					ps.add("/default/"+strconv.Itoa(k), "Expected string")
					continue
				}
				defaults = append(defaults, s)
			}
		default:
			ps.add("/default", "Expected string or array of strings")
		}
	}
	ms, _ := ps.timeoutMs(top, "/timeoutMs")
	sensitivity := SensitivityInternal
	if s, ok := ps.str(top, "sensitivity", "/sensitivity", false); ok {
		switch s {
		case SensitivityPublic, SensitivityInternal, SensitivitySecret:
			sensitivity = s
		default:
			ps.add("/sensitivity", `Expected "public", "internal" or "secret"`)
		}
	}
	reason, hasReason := ps.str(top, "reason", "/reason", false)
	if hasReason && units(reason) > MaxQuestionUnits {
		ps.add("/reason", "Expected string length less or equal to "+strconv.Itoa(MaxQuestionUnits))
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}

	q := askuser.Question{
		ID:         QuestionID(question),
		Header:     "Question",
		Text:       question,
		OnDeadline: askuser.FallbackNothing,
		Sensitive:  sensitivity == SensitivitySecret,
	}
	if hasReason {
		q.Text += "\n\nReason: " + reason
	}
	switch kindS {
	case KindText, KindEditor:
		q.Kind = askuser.KindText
		q.Multiline = kindS == KindEditor
		q.AllowOther = true
		q.Options = []askuser.Option{}
		q.Prefill = strings.Join(defaults, ", ")
	default:
		q.Kind = askuser.KindChoice
		q.MultiSelect = kindS == KindMultiSelect
		q.AllowOther, q.OtherExclusive, q.OtherLabel = true, true, OtherLabel
		q.Options = make([]askuser.Option, len(options))
		for k, s := range options {
			q.Options[k] = askuser.Option{Value: s, Label: s}
		}
		distinctValues(q.Options)
		if isArray && !q.MultiSelect && len(defaults) > 1 {
			defaults = defaults[:1]
		}
		for _, d := range defaults {
			if o := optionLabelled(q.Options, d); o != nil {
				o.Default = true
			}
		}
		q.NoDefault = !hasDefault(q.Options)
	}
	return &askuser.Form{
		Questions:          []askuser.Question{q},
		TimeoutSeconds:     timeoutSeconds(ms, lim),
		Contract:           Name,
		DialectData:        state{rich: true, sensitivity: sensitivity},
		Unattended:         askuser.FallbackNothing,
		CancelDropsAnswers: true,
	}, nil
}

// distinctValues gives options distinct values. An option's value is its
// label; but labels need not be unique in this contract (two options may
// both read "a"), and where they repeat, every option of the question is
// told apart by its 1-based position instead, so that the two stay two
// options a person can pick between.
func distinctValues(opts []askuser.Option) {
	seen := make(map[string]bool, len(opts))
	for _, o := range opts {
		if seen[o.Label] {
			for k := range opts {
				opts[k].Value = strconv.Itoa(k + 1)
			}
			return
		}
		seen[o.Label] = true
	}
}

// optionLabelled returns the first option with the given label, or nil.
func optionLabelled(opts []askuser.Option, label string) *askuser.Option {
	for i := range opts {
		if opts[i].Label == label {
			return &opts[i]
		}
	}
	return nil
}

func hasDefault(opts []askuser.Option) bool {
	for _, o := range opts {
		if o.Default {
			return true
		}
	}
	return false
}

// QuestionID is a rich question's id: "q_" and the FNV-1a 32-bit hash of
// the question's UTF-16 code units, each unit XORed in whole, in eight
// lower-case hex digits.
func QuestionID(question string) string {
	h := uint32(0x811c9dc5)
	for _, u := range utf16.Encode([]rune(question)) {
		h ^= uint32(u)
		h *= 0x01000193
	}
	return fmt.Sprintf("q_%08x", h)
}

// DecisionID is the id of a question's decision record: "ask-" and the
// question id, lower-cased, every run of characters outside a-z and 0-9
// replaced by "-", trimmed of "-", cut to 80 characters and trimmed of "-"
// again.
func DecisionID(questionID string) string {
	s := strings.ToLower("ask-" + questionID)
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 80 {
		out = out[:80]
	}
	return strings.Trim(out, "-")
}
