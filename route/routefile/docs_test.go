package routefile_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/route/routefile"
)

// TestDocsExamples: every YAML and JSON example of docs/routing.md reads,
// and what the page says validate prints for it is what Describe says.
func TestDocsExamples(t *testing.T) {
	page, err := os.ReadFile("../../docs/routing.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(yaml|json)\n(.*?)```").FindAllStringSubmatch(string(page), -1)
	outputs := regexp.MustCompile("(?s)\\$ askuser validate --routes \\S+\n(.*?)```").FindAllStringSubmatch(string(page), -1)
	if len(blocks) < 3 || len(outputs) < 2 {
		t.Fatalf("found %d examples and %d outputs in docs/routing.md", len(blocks), len(outputs))
	}
	var described []string
	for i, b := range blocks {
		f, err := routefile.Parse("example", []byte(b[2]))
		if err != nil {
			t.Errorf("example %d (%s) does not read: %v", i+1, b[1], err)
			continue
		}
		if b[1] == "yaml" {
			described = append(described, f.Describe())
		}
	}
	for i, o := range outputs {
		if i >= len(described) || o[1] != described[i] {
			t.Errorf("docs/routing.md output %d:\n%s\nDescribe says:\n%s", i+1, o[1], strings.Join(described, "\n"))
		}
	}
}
