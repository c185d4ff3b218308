package piask_test

import (
	"context"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/responder/scripted"
)

// A model calls the pi-ask tool; a person (here a script) picks by value and
// adds a note; the model reads the contract's result.
func Example() {
	args := `{"questions":[{"id":"db","label":"Database","prompt":"Which database?","options":[
	  {"value":"pg","label":"PostgreSQL"},{"value":"lite","label":"SQLite"}]}]}`
	person := scripted.New(
		scripted.Step{Answer: &askuser.Answer{QuestionID: "db", Selected: []string{"lite"}, Note: "for now"}},
		scripted.Step{End: scripted.EndSubmit})
	o := &askuser.Orchestrator{Responder: person}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(args), Dialect: piask.Dialect()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out.Result))
	// Output:
	// {"content":[{"type":"text","text":"Database: SQLite\nDatabase note: for now"}],"details":{"cancelled":false,"questions":[{"id":"db","label":"Database","prompt":"Which database?","type":"single"}],"answers":{"db":{"values":["lite"],"labels":["SQLite"],"indices":[2],"note":"for now"}}}}
}

// An invalid call is never shown to anyone; the model gets the contract's
// own result for it.
func Example_invalid() {
	_, err := piask.Dialect().Decode([]byte(`{"questions":[{"id":"db","prompt":"Which?","options":[]}]}`), dialect.Limits{})
	ce := err.(*dialect.CallError)
	fmt.Println(string(ce.Result))
	// Output:
	// {"content":[{"type":"text","text":"Error: Question 1: at least one option is required"}],"details":{"cancelled":true,"questions":[],"answers":{}}}
}
