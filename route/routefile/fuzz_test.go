package routefile_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/route/routefile"
)

// FuzzParse: whatever the bytes, Parse returns a file or an *Error and
// never panics; every route it returns passes Check, survives its JSON
// snapshot unchanged, and can be described; every rule names a route of
// the file.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "routes: [", "routes:\n  a: &x {steps: [{responders: [card]}]}\n  b: *x\n",
		`{"routes":{"a":{"steps":[{"responders":["card"]},{"after":"1s","from":"nudge","people":["x"]}],"repeat":0}}}`,
		"routes:\n  a:\n    steps: [{responders: [card]}, {after: 1m, responders: [email]}]\n    repeat: 3\n    repeat_after: 5m\n    quorum: {required: 1, eligible: [a, {group: g, per_member: true}], veto: anyone}\ngroups: {g: [b, c]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := routefile.Parse("fuzz.yaml", data)
		if err != nil {
			var e *routefile.Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("Parse returned %T %v, want an *Error with a message", err, err)
			}
			return
		}
		for name, r := range file.Routes {
			if err := r.Check(); err != nil {
				t.Fatalf("route %s passed Parse but not Check: %v", name, err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var back route.Route
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("route %s: its snapshot does not read back: %v", name, err)
			}
			b2, _ := json.Marshal(back)
			if string(b) != string(b2) {
				t.Fatalf("route %s: the snapshot is not stable:\n%s\n%s", name, b, b2)
			}
			_ = r.Describe()
		}
		for _, rule := range file.Rules {
			if _, ok := file.Routes[rule.Route]; !ok {
				t.Fatalf("a rule names route %q, which the file does not define", rule.Route)
			}
		}
		_ = file.Describe()
	})
}
