package strictjson

import "testing"

func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "  ": "", ` {"a":1}`: "object", "[]": "array", `"s"`: "string",
		"true": "boolean", "false": "boolean", "null": "null", "-1.5": "number", "\n\t7": "number",
	} {
		if got := Kind([]byte(in)); got != want {
			t.Errorf("Kind(%q) = %q; want %q", in, got, want)
		}
	}
}
