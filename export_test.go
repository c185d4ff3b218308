package askuser

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/askuser-go/askuser/route"
)

// RecordVerdict decodes a journal record as this package reads it back
// and computes its verdict again (recordVerdict), for the package's
// external tests (the fuzz target of journal records' votes) only.
func RecordVerdict(data []byte) (*route.Verdict, error) {
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	return recordVerdict(&rec)
}

// SecretsOf gives the external tests the store an orchestrator seals
// answers into, its own in-memory one when Secrets is nil, which no
// program can reach.
var SecretsOf = (*Orchestrator).secrets

// RecordTypes are the types of the journal record this package writes
// and of its quorum, for the test that keeps them in step with package
// journal's.
var RecordTypes = [2]reflect.Type{reflect.TypeFor[record](), reflect.TypeFor[recordQuorum]()}

// PanicValue gives the external tests what a responder's
// panic left in Outcome.Fault (ok is false when the fault is no panic).
func PanicValue(err error) (value any, stack []byte, ok bool) {
	var pe *panicError
	if !errors.As(err, &pe) {
		return nil, nil, false
	}
	return pe.value, pe.stack, true
}

// ErrNoEnding is the fault recorded when a responder returns without
// ending its ask, for the external tests that look for it.
var ErrNoEnding = errNoEnding
