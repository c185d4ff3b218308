// Package dialect holds what every contract on top of askuser's model
// shares: the bounds the embedding program sets on a model's call
// (Limits), and the error an invalid call returns (CallError). The
// contracts themselves are its subpackages: askusertool (ask_user, the
// default), approvaltool (request_approval), piask and pi, each returning
// its askuser.Dialect from Dialect().
package dialect

// The defaults of Limits.
const (
	// DefaultMaxTimeoutSeconds is the ceiling on a call's wait, and its
	// wait when the call names none.
	DefaultMaxTimeoutSeconds = 300
	// DefaultMaxCallBytes caps the size of a call's arguments.
	DefaultMaxCallBytes = 64 << 10
)

// Limits are the bounds the embedding program sets on calls. A zero (or
// negative) field means its default.
type Limits struct {
	// MaxTimeoutSeconds is the ceiling on a call's wait and its default
	// (zero: DefaultMaxTimeoutSeconds); the messages of an invalid call
	// name it.
	MaxTimeoutSeconds int
	// MaxCallBytes caps the size of a call's arguments, in bytes (zero:
	// DefaultMaxCallBytes).
	MaxCallBytes int
}

// WithDefaults returns l with every zero (or negative) field set to its
// default.
func (l Limits) WithDefaults() Limits {
	if l.MaxTimeoutSeconds <= 0 {
		l.MaxTimeoutSeconds = DefaultMaxTimeoutSeconds
	}
	if l.MaxCallBytes <= 0 {
		l.MaxCallBytes = DefaultMaxCallBytes
	}
	return l
}

// A CallError is an invalid call: nobody is asked, and the model gets
// Message (or Result, where the contract has one) and can fix its call.
type CallError struct {
	// Path is the JSON path of the first shape problem
	// ("questions[1].kind"), or empty for a broken rule.
	Path string
	// Message is the whole model-facing message, with the contract's
	// prefix ("invalid ask_user arguments: ...").
	Message string
	// Result is the tool result the contract returns for an invalid call,
	// where it returns one (the pi contracts); nil where the message itself
	// is the tool's error result (ask_user).
	Result []byte
}

// Error returns Message.
func (e *CallError) Error() string { return e.Message }
