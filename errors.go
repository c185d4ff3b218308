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

// ErrNoEnding is the fault recorded when a responder's Respond returns nil
// without ending the ask.
var ErrNoEnding = errors.New("askuser: the responder returned without ending the ask (call Submit, Decline, Cancel or Unreachable before returning)")

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

// A PanicError is the fault recorded when a responder panics.
type PanicError struct {
	// Value is what the responder panicked with.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("askuser: the responder panicked: %v", e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
