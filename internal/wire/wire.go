// Package wire holds the ask_user contract's JSON shapes (SPEC §1 and §2):
// the call a model sends and the result it reads. The root package decodes
// into and encodes from these; the schema package reflects on them. They
// are not the model underneath (askuser.Call holds more than this contract
// accepts).
//
// Pointer fields distinguish an absent (or null) field from a given one,
// which the validation messages need ("id given but blank").
package wire

// Call is the ask_user tool's arguments.
type Call struct {
	Questions      []Question `json:"questions" jsonschema:"minItems=1,maxItems=4"`
	TimeoutSeconds *int       `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=300"`
	AskedAt        *string    `json:"asked_at,omitempty"`
	NudgeAt        *string    `json:"nudge_at,omitempty"`
	ExpiresAt      *string    `json:"expires_at,omitempty"`
}

// Question is one question of a call.
type Question struct {
	Kind        *string  `json:"kind,omitempty" jsonschema:"enum=choice,enum=text,enum=secret"`
	ID          *string  `json:"id,omitempty"`
	Header      *string  `json:"header"`
	Question    *string  `json:"question"`
	MultiSelect *bool    `json:"multi_select,omitempty"`
	AllowOther  *bool    `json:"allow_other,omitempty"`
	Options     []Option `json:"options,omitempty"`
	SecretName  *string  `json:"secret_name,omitempty"`
	Purpose     *string  `json:"purpose,omitempty"`
}

// Option is one option of a choice question.
type Option struct {
	Label       *string `json:"label"`
	Description *string `json:"description"`
	Default     *bool   `json:"default,omitempty"`
}

// Result is what the model reads back.
type Result struct {
	Status     string   `json:"status"`
	AnsweredBy string   `json:"answered_by"`
	Answers    []Answer `json:"answers"`
}

// Answer is one answer of a result.
type Answer struct {
	ID         string   `json:"id"`
	Selected   []string `json:"selected"`
	OtherText  *string  `json:"other_text"`
	SecretRef  string   `json:"secret_ref,omitempty"`
	AnsweredBy string   `json:"answered_by,omitempty"`
	Note       string   `json:"note,omitempty"`
}
