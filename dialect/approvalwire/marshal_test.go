package approvalwire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// TestMarshal writes calls back in their JSON form, and decoding that form
// gives the same call again.
func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		c    approvalwire.Call
		want string
	}{
		{"every field", approvalwire.Call{Action: "Run <migrate> & go", Reason: "r", Risk: "high", Details: "a\u2028b", TimeoutSeconds: 60, HumanIntent: "Speeding up search"},
			`{"action":"Run <migrate> & go","reason":"r","risk":"high","details":"a\u2028b","timeout_seconds":60,"human_intent":"Speeding up search"}`},
		{"the required fields", approvalwire.Call{Action: "a", Reason: "r", Risk: "low", TimeoutSeconds: 300},
			`{"action":"a","reason":"r","risk":"low","timeout_seconds":300}`},
		{"no timeout: the ceiling applies", approvalwire.Call{Action: "a", Reason: "r", Risk: "low"},
			`{"action":"a","reason":"r","risk":"low"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approvalwire.Marshal(&tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
			back, err := approvalwire.Decode(got, dialect.Limits{MaxTimeoutSeconds: 300})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.c
			if want.TimeoutSeconds == 0 {
				want.TimeoutSeconds = 300
			}
			if diff := cmp.Diff(want, *back); diff != "" {
				t.Errorf("decoded again (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := approvalwire.Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
}
