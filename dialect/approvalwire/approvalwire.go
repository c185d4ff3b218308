// Package approvalwire is the JSON wire format of the request_approval
// tool, the consent gate that pairs with ask_user: it reads the arguments a
// model sends when it asks permission to act, checks them against the
// tool's contract in a fixed order and answers an invalid call with one
// message the model can fix its call from, fills in the defaults of a valid
// call, writes a call back in the same JSON form, encodes the result the
// model reads, and carries the tool's description and the guidance text for
// the model's system prompt.
//
// The package knows nothing of the orchestrator: package
// dialect/approvaltool's Dialect maps a Call onto an approval form and
// renders an outcome's verdict as a Result. docs/request_approval.md is the contract.
package approvalwire

// ToolName is the name of the request_approval tool.
const ToolName = "request_approval"

// Prefix starts every message of an invalid call.
const Prefix = "invalid request_approval arguments: "

// The limits of a call's fields: action and reason in characters (runes),
// details in bytes of UTF-8, human_intent in characters.
const (
	MaxActionRunes  = 200
	MaxReasonRunes  = 500
	MaxDetailsBytes = 8 << 10
	MaxIntentRunes  = 120
)

// The risks a call can carry, lowest first.
const (
	RiskLow          = "low"
	RiskMedium       = "medium"
	RiskHigh         = "high"
	RiskIrreversible = "irreversible"
)

// Risks returns the risks in order, lowest first.
func Risks() []string { return []string{RiskLow, RiskMedium, RiskHigh, RiskIrreversible} }

// Call is a validated, normalized request_approval call.
type Call struct {
	// Action says what will be done: 1–200 characters, not blank.
	Action string
	// Reason says why: 1–500 characters, not blank.
	Reason string
	// Risk is one of Risks().
	Risk string
	// Details is longer text the person can expand (a command, a diff, a
	// list of resources): at most 8 KiB; empty when the call carries none.
	Details string
	// TimeoutSeconds is how long the call waits for a decision.
	TimeoutSeconds int
	// HumanIntent is the agent's one-line narration of what it is doing,
	// at most 120 characters, kept as the model sent it; empty when the
	// call carries none.
	HumanIntent string
}

// Error is an invalid call.
type Error struct {
	// Path is the JSON path of a shape problem ("risk", "(root)" for the
	// top-level value, ["a b"] for a field name that is not a plain
	// identifier); it is empty for a broken rule and for the size cap.
	Path string
	// Message is the whole model-facing message, starting with Prefix.
	Message string
}

// Error returns the model-facing message.
func (e *Error) Error() string { return e.Message }
