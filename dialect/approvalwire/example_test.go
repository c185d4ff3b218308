package approvalwire_test

import (
	"fmt"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// A model's call is decoded, or refused with a message it can fix its call
// from; an outcome is written as the result the model reads.
func Example() {
	_, err := approvalwire.Decode([]byte(`{"action":"Drop the table users","reason":"Replaced by accounts","risk":"severe"}`), dialect.Limits{})
	fmt.Println(err)

	c, err := approvalwire.Decode([]byte(`{"action":"Drop the table users","reason":"Replaced by accounts","risk":"irreversible","timeout_seconds":120}`), dialect.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s (%s risk), waiting %d s\n", c.Action, c.Risk, c.TimeoutSeconds)

	res, err := approvalwire.EncodeResult(&approvalwire.Result{
		Status:       approvalwire.StatusUnresolved,
		Ended:        approvalwire.EndedDeadline,
		ActionDigest: "sha256:f3a8d31c1d4bd4a8a3d19ff2a0c9ff3e5fb3ba7a6c8d3b7ba24d9a8f4d2e9c11",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res))
	// Output:
	// invalid request_approval arguments: risk: "severe" is not a risk; allowed: "low", "medium", "high", "irreversible"
	// Drop the table users (irreversible risk), waiting 120 s
	// {"status":"unresolved","decided_by":null,"note":null,"ended":"deadline","action_digest":"sha256:f3a8d31c1d4bd4a8a3d19ff2a0c9ff3e5fb3ba7a6c8d3b7ba24d9a8f4d2e9c11","message":"Nobody approved this action: the wait ended before anyone decided. You have no permission to perform it, and must not act. Tell the user what you did not do; ask again only if it is still needed."}
}
