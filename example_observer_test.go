package askuser_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/askuser-go/askuser"
)

// An Observer sets the hooks it needs; here, a count of how asks ended, by
// status and by who decided, as a metrics exporter would keep it. The
// hooks run on the ask's goroutine, so they only count.
func ExampleObserver() {
	var (
		mu    sync.Mutex
		ended = map[string]int{}
	)
	o := &askuser.Orchestrator{Observer: &askuser.Observer{
		Ended: func(_ context.Context, out *askuser.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			ended[string(out.Status)+"/"+string(out.AnsweredBy)]++
		},
	}}
	args := []byte(`{"questions":[{"header":"Env","question":"Which environment first?","options":[
		{"label":"staging","description":"Smoke tests first","default":true},
		{"label":"production","description":"Straight to users"}]}]}`)
	for _, call := range []string{"call_1", "call_2", "call_1"} { // call_1 again is a replay: it does not end again
		if _, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: call, Arguments: args}); err != nil {
			panic(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(ended)
	// Output:
	// map[answered/unattended:2]
}
