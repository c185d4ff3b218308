// Package wire holds the ask_user contract's JSON shapes, as
// docs/ask_user.md describes them: the call a model sends and the result it
// reads. The root package encodes results from these, the schema package
// reflects on them for the tool definition, and tests read normalized calls
// back into them; package dialect/askuserwire decodes calls itself. They are
// not the model underneath (askuser.Form holds more than this contract
// accepts).
//
// Pointer fields distinguish an absent (or null) field from a given one,
// which the validation messages need ("id given but blank").
package wire

import (
	"bytes"
	"encoding/json"
)

// Call is the ask_user tool's arguments.
type Call struct {
	Questions      []Question `json:"questions" jsonschema:"minItems=1,maxItems=4" jsonschema_description:"The questions to ask, in the order the person sees them. Batch related questions into one call. A secret question must be the only question in the call."`
	TimeoutSeconds *int       `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=300" jsonschema_description:"How long to wait for an answer, in whole seconds. Absent: the longest wait allowed. You may shorten the wait, never extend it."`
	HumanIntent    *string    `json:"human_intent,omitempty" jsonschema:"maxLength=120" jsonschema_description:"Optional: one line, at most 120 characters, saying what you are doing and why you ask (\"Deploying the login fix\"); shown to the person above the questions."`
	// The stamps are read-only: the library writes them and overwrites
	// whatever a model sends, so the schema package leaves them out.
	AskedAt   *string `json:"asked_at,omitempty" jsonschema:"-"`
	NudgeAt   *string `json:"nudge_at,omitempty" jsonschema:"-"`
	ExpiresAt *string `json:"expires_at,omitempty" jsonschema:"-"`
}

// Question is one question of a call.
type Question struct {
	Kind        *string  `json:"kind,omitempty" jsonschema:"enum=choice,enum=text,enum=secret" jsonschema_description:"choice (the default): pick from described options; text: one free-form answer, no options; secret: collects one credential, returned as the reference session:<secret_name>, never the value."`
	ID          *string  `json:"id,omitempty" jsonschema:"minLength=1" jsonschema_description:"An id for the answer: non-blank, unique in the call. Absent: question_1, question_2, …"`
	Header      *string  `json:"header" jsonschema:"minLength=1,maxLength=16" jsonschema_description:"A short chip label for the question: non-blank, at most 16 characters."`
	Question    *string  `json:"question" jsonschema:"minLength=1" jsonschema_description:"The full question: non-blank."`
	MultiSelect *bool    `json:"multi_select,omitempty" jsonschema_description:"choice: the person may pick several options. Default false."`
	AllowOther  *bool    `json:"allow_other,omitempty" jsonschema_description:"choice: also offer a free-text \"Something else\" answer. Default true."`
	Options     []Option `json:"options,omitempty" jsonschema:"maxItems=6" jsonschema_description:"choice: 2 to 6 described options, most applicable first. text and secret: none."`
	SecretName  *string  `json:"secret_name,omitempty" jsonschema:"minLength=1,maxLength=255" jsonschema_description:"secret only, and required there: the name the credential is stored under, not all whitespace; you receive session:<secret_name>."`
	Purpose     *string  `json:"purpose,omitempty" jsonschema:"minLength=1" jsonschema_description:"secret only, and required there: what the credential is for, non-blank."`
}

// Option is one option of a choice question.
type Option struct {
	Label       *string `json:"label" jsonschema:"minLength=1" jsonschema_description:"The option as shown and as answered: non-blank, unique within its question (compared exactly)."`
	Description *string `json:"description" jsonschema:"minLength=1" jsonschema_description:"What picking this option means: non-blank."`
	Default     *bool   `json:"default,omitempty" jsonschema_description:"Marks the recommended option, applied when nobody answers. A single-select question marks at most one."`
}

// Result is what the model reads back.
type Result struct {
	Status     string   `json:"status" jsonschema:"enum=answered,enum=declined,enum=cancelled,enum=timed_out" jsonschema_description:"How the ask ended."`
	AnsweredBy string   `json:"answered_by" jsonschema:"enum=user,enum=timeout,enum=unattended" jsonschema_description:"Who decided: user (a person), timeout (the deadline passed and the recommended options were applied), unattended (nobody could be asked). A fallback is not a considered answer."`
	Answers    []Answer `json:"answers" jsonschema_description:"The answers, in question order. A declined question is a finished decision: do not ask it again."`
}

// Answer is one answer of a result.
type Answer struct {
	ID         string   `json:"id" jsonschema_description:"The question's id."`
	Selected   []string `json:"selected" jsonschema_description:"The labels picked, exactly as offered, in option order."`
	OtherText  *string  `json:"other_text" jsonschema:"nullable" jsonschema_description:"The free-text answer, trimmed; null when there is none."`
	SecretRef  string   `json:"secret_ref,omitempty" jsonschema_description:"On a secret answer only: the reference session:<secret_name> to pass on; never the value."`
	AnsweredBy string   `json:"answered_by,omitempty" jsonschema:"enum=user,enum=timeout,enum=unattended" jsonschema_description:"Present only where it differs from the top level's answered_by."`
	Note       string   `json:"note,omitempty" jsonschema_description:"A note the person wrote."`
}

// Marshal encodes v as JSON on one line without escaping <, > and &, which
// questions, labels and descriptions use and every JSON reader takes as
// they are. It is the one encoder of the results and definitions askuser
// writes.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
