package canonjson

import (
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"é <&> \u2028", "\"é <&> \u2028\""},
	} {
		got := string(AppendString(nil, tt.in))
		if got != tt.want {
			t.Errorf("AppendString(%q) = %s; want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tt.in {
			t.Errorf("%s does not read back as %q: %v", got, tt.in, err)
		}
	}
}
