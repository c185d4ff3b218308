// Package dialect holds what every contract on top of askuser's model
// shares: the bounds the embedding program sets on a model's call. The
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
