package askuser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrAskEnded is returned by every report on an ask that has ended: after an
// ending, after the deadline (at exactly ExpiresAt the deadline wins), or
// after the embedding program superseded it. Nothing of the report is kept.
var ErrAskEnded = errors.New("askuser: the ask has ended; nothing more is accepted")

// errNoEnding is the fault recorded when a responder's Respond returns nil
// without ending the ask.
var errNoEnding = errors.New("askuser: the responder returned without ending the ask (call Submit, Decline, Cancel or Unreachable before returning)")

// An AnswerError is a refused answer. Reason is written for the person, so
// a responder can show it and ask again; it never echoes a credential.
type AnswerError struct {
	// QuestionID is the question the answer was for.
	QuestionID string
	// Reason says what is wrong and what is accepted.
	Reason string
}

func (e *AnswerError) Error() string {
	return "askuser: answer to question " + strconv.Quote(e.QuestionID) + " refused: " + e.Reason
}

// An UnansweredError refuses a submit while required questions have no
// accepted answer.
type UnansweredError struct {
	// QuestionIDs are the required questions without an answer, in order.
	QuestionIDs []string
}

func (e *UnansweredError) Error() string {
	q := make([]string, len(e.QuestionIDs))
	for i, id := range e.QuestionIDs {
		q[i] = strconv.Quote(id)
	}
	return "askuser: cannot submit yet: question " + strings.Join(q, ", ") + " still needs an answer"
}

// A panicError is the fault recorded when a responder panics: the
// fault's text gives the value, and the log line that reports the fault
// gives the stack. errors.Is and errors.As reach the value when it is an
// error.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string {
	return fmt.Sprintf("askuser: the responder panicked: %v", e.value)
}

// Unwrap returns the panic value when it is an error.
func (e *panicError) Unwrap() error {
	err, _ := e.value.(error)
	return err
}
