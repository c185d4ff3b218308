package dialect_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
)

// An invalid call is never shown to anyone; the model gets a message it can
// fix its call from.
func ExampleCallError() {
	var o askuser.Orchestrator
	_, err := o.Handle(context.Background(), askuser.Request{Arguments: []byte(`{"questions":[{"header":"A header that is too long","question":"Which?"}]}`)})
	var ce *dialect.CallError
	if errors.As(err, &ce) {
		fmt.Println(ce.Message)
	}
	// Output:
	// invalid ask_user arguments: question 1 header must not exceed 16 characters
}
