package approvalwire_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

const prefix = "invalid request_approval arguments: "

// A valid call, and the fields it is built from.
const (
	action = `"action":"Delete the S3 bucket logs-2023"`
	reason = `"reason":"It holds last year's logs, which were archived to Glacier"`
	risk   = `"risk":"irreversible"`
)

func call(fields ...string) string { return "{" + strings.Join(fields, ",") + "}" }

// TestDecodeValid reads valid calls into the Call they mean, defaults
// filled in.
func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name string
		data string
		lim  dialect.Limits
		want approvalwire.Call
	}{
		{
			name: "the three required fields",
			data: call(action, reason, risk),
			want: approvalwire.Call{Action: "Delete the S3 bucket logs-2023", Reason: "It holds last year's logs, which were archived to Glacier", Risk: "irreversible", TimeoutSeconds: 300},
		},
		{
			name: "every field",
			data: `{"action":"Run the migration","reason":"Adds the index","risk":"medium","details":"ALTER TABLE t ADD INDEX i (c);","timeout_seconds":120,"human_intent":"Speeding up the search page"}`,
			want: approvalwire.Call{Action: "Run the migration", Reason: "Adds the index", Risk: "medium", Details: "ALTER TABLE t ADD INDEX i (c);", TimeoutSeconds: 120, HumanIntent: "Speeding up the search page"},
		},
		{
			name: "null is absent",
			data: `{"action":"a","reason":"r","risk":"low","details":null,"timeout_seconds":null,"human_intent":null}`,
			want: approvalwire.Call{Action: "a", Reason: "r", Risk: "low", TimeoutSeconds: 300},
		},
		{
			name: "strings kept as sent, never trimmed",
			data: `{"action":"  a  ","reason":"\tr\n","risk":"high","details":"  ","human_intent":" "}`,
			want: approvalwire.Call{Action: "  a  ", Reason: "\tr\n", Risk: "high", Details: "  ", HumanIntent: " ", TimeoutSeconds: 300},
		},
		{
			name: "escapes decoded, invalid UTF-8 as U+FFFD",
			data: "{\"action\":\"caf\\u00e9 \\ud800\",\"reason\":\"r\xff\",\"risk\":\"\\u006cow\"}",
			want: approvalwire.Call{Action: "café \ufffd", Reason: "r\ufffd", Risk: "low", TimeoutSeconds: 300},
		},
		{
			name: "whole numbers in timeout_seconds",
			data: call(action, reason, risk, `"timeout_seconds":1e1`),
			want: approvalwire.Call{Action: "Delete the S3 bucket logs-2023", Reason: "It holds last year's logs, which were archived to Glacier", Risk: "irreversible", TimeoutSeconds: 10},
		},
		{
			name: "another ceiling is the default",
			data: call(action, reason, risk),
			lim:  dialect.Limits{MaxTimeoutSeconds: 60},
			want: approvalwire.Call{Action: "Delete the S3 bucket logs-2023", Reason: "It holds last year's logs, which were archived to Glacier", Risk: "irreversible", TimeoutSeconds: 60},
		},
		{
			name: "the limits exactly",
			data: call(`"action":"`+strings.Repeat("é", 200)+`"`, `"reason":"`+strings.Repeat("🙂", 500)+`"`, risk,
				`"details":"`+strings.Repeat("x", 8192)+`"`, `"timeout_seconds":300`, `"human_intent":"`+strings.Repeat("日", 120)+`"`),
			want: approvalwire.Call{Action: strings.Repeat("é", 200), Reason: strings.Repeat("🙂", 500), Risk: "irreversible",
				Details: strings.Repeat("x", 8192), TimeoutSeconds: 300, HumanIntent: strings.Repeat("日", 120)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approvalwire.Decode([]byte(tt.data), tt.lim)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeMessages pins every message, in the order the checks run: the
// size cap, then the shape in document order, then the rules.
func TestDecodeMessages(t *testing.T) {
	tests := []struct {
		name, data string
		lim        dialect.Limits
		path, want string
	}{
		// the size cap, first of all
		{name: "over the cap", data: call(action, reason, risk, `"details":"`+strings.Repeat("x", 100)+`"`), lim: dialect.Limits{MaxCallBytes: 100},
			want: "the call is 247 bytes; at most 100 bytes are accepted"},
		{name: "over the default cap, even when not JSON", data: strings.Repeat("[", 64<<10+1),
			want: "the call is 65537 bytes; at most 65536 bytes are accepted"},

		// the shape
		{name: "not an object", data: `[1]`, path: "(root)", want: "(root): expected an object, got an array"},
		{name: "a string", data: `"approve"`, path: "(root)", want: "(root): expected an object, got a string"},
		{name: "empty input", data: ``, path: "(root)", want: "(root): invalid JSON at byte offset 0: unexpected end of input; expected a value"},
		{name: "trailing data", data: call(action, reason, risk) + ` {}`, path: "(root)", want: "(root): invalid JSON at byte offset 135: unexpected data after the top-level value"},
		{name: "unknown field", data: call(action, `"command":"rm -rf /"`), path: "command",
			want: "command: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent"},
		{name: "miscased field", data: call(`"Action":"a"`), path: "Action",
			want: "Action: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent"},
		{name: "field name not an identifier", data: call(`"a b":1`), path: `["a b"]`,
			want: `["a b"]: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent`},
		{name: "a stamp is unknown here", data: call(action, reason, risk, `"expires_at":"2026-11-30T09:00:00Z"`), path: "expires_at",
			want: "expires_at: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent"},
		{name: "duplicate field", data: call(action, reason, risk, `"risk":"low"`), path: "risk", want: "risk: duplicate field; a field may appear only once"},
		{name: "duplicate field, one null", data: call(`"details":null`, action, `"details":"x"`), path: "details", want: "details: duplicate field; a field may appear only once"},
		{name: "action not a string", data: call(`"action":["rm"]`), path: "action", want: "action: expected a string, got an array"},
		{name: "reason a number", data: call(action, `"reason":5`), path: "reason", want: "reason: expected a string, got a number"},
		{name: "details an object", data: call(action, reason, risk, `"details":{"diff":"x"}`), path: "details", want: "details: expected a string, got an object"},
		{name: "human_intent true", data: call(`"human_intent":true`), path: "human_intent", want: "human_intent: expected a string, got true"},
		{name: "risk unknown", data: call(`"risk":"extreme"`), path: "risk", want: `risk: "extreme" is not a risk; allowed: "low", "medium", "high", "irreversible"`},
		{name: "risk miscased", data: call(`"risk":"High"`), path: "risk", want: `risk: "High" is not a risk; allowed: "low", "medium", "high", "irreversible"`},
		{name: "risk long, cut", data: call(`"risk":"` + strings.Repeat("z", 50) + `"`), path: "risk", want: `risk: "` + strings.Repeat("z", 40) + `…" is not a risk; allowed: "low", "medium", "high", "irreversible"`},
		{name: "risk a number", data: call(`"risk":3`), path: "risk", want: `risk: expected one of "low", "medium", "high", "irreversible", got a number`},
		{name: "timeout fractional", data: call(`"timeout_seconds":1.5`), path: "timeout_seconds", want: "timeout_seconds: expected an integer, got 1.5"},
		{name: "timeout a string", data: call(`"timeout_seconds":"10"`), path: "timeout_seconds", want: "timeout_seconds: expected an integer, got a string"},
		{name: "broken string", data: `{"action":"a`, path: "action", want: `action: invalid JSON at byte offset 12: unexpected end of input; expected '"' to end the string`},
		{name: "missing comma", data: `{"action":"a" "reason":"r"}`, path: "(root)", want: `(root): invalid JSON at byte offset 14: unexpected '"'; expected ',' or '}'`},
		{name: "missing colon", data: `{"action" "a"}`, path: "(root)", want: `(root): invalid JSON at byte offset 10: unexpected '"'; expected ':' after the field name`},
		{name: "bad literal", data: `{"details":nul}`, path: "details", want: `details: invalid JSON at byte offset 14: unexpected '}'; expected "l" to complete null`},
		{name: "the shape before every rule", data: `{"action":"","reason":"","extra":1}`, path: "extra",
			want: "extra: unknown field; allowed fields: action, reason, risk, details, timeout_seconds, human_intent"},

		// the rules, in order
		{name: "nothing at all", data: `{}`, want: "action must not be empty; say what will be done"},
		{name: "action null", data: call(`"action":null`, reason, risk), want: "action must not be empty; say what will be done"},
		{name: "action blank", data: call(`"action":" \t\n"`, reason, risk), want: "action must not be empty; say what will be done"},
		{name: "action too long", data: call(`"action":"`+strings.Repeat("é", 201)+`"`, reason, risk), want: "action must not exceed 200 characters; put the rest in details"},
		{name: "reason missing", data: call(action, risk), want: "reason must not be empty; say why the action is needed"},
		{name: "reason blank", data: call(action, `"reason":"\u00a0"`, risk), want: "reason must not be empty; say why the action is needed"},
		{name: "reason too long", data: call(action, `"reason":"`+strings.Repeat("🙂", 501)+`"`, risk), want: "reason must not exceed 500 characters"},
		{name: "risk missing", data: call(action, reason), want: `risk is required; allowed: "low", "medium", "high", "irreversible"`},
		{name: "risk null", data: call(action, reason, `"risk":null`), want: `risk is required; allowed: "low", "medium", "high", "irreversible"`},
		{name: "details one byte over", data: call(action, reason, risk, `"details":"`+strings.Repeat("x", 8193)+`"`), want: "details must not exceed 8192 bytes; it has 8193 bytes"},
		{name: "details in bytes, not characters", data: call(action, reason, risk, `"details":"`+strings.Repeat("é", 4097)+`"`), want: "details must not exceed 8192 bytes; it has 8194 bytes"},
		{name: "timeout 0", data: call(action, reason, risk, `"timeout_seconds":0`), want: "timeout_seconds must be between 1 and 300"},
		{name: "timeout negative", data: call(action, reason, risk, `"timeout_seconds":-5`), want: "timeout_seconds must be between 1 and 300"},
		{name: "timeout over the ceiling", data: call(action, reason, risk, `"timeout_seconds":301`), want: "timeout_seconds must be between 1 and 300"},
		{name: "timeout huge", data: call(action, reason, risk, `"timeout_seconds":1e400`), want: "timeout_seconds must be between 1 and 300"},
		{name: "timeout over another ceiling", data: call(action, reason, risk, `"timeout_seconds":121`), lim: dialect.Limits{MaxTimeoutSeconds: 120}, want: "timeout_seconds must be between 1 and 120"},
		{name: "human_intent too long", data: call(action, reason, risk, `"human_intent":"`+strings.Repeat("é", 121)+`"`), want: "human_intent must not exceed 120 characters"},
		{name: "the first broken rule wins", data: `{"reason":"","timeout_seconds":0}`, want: "action must not be empty; say what will be done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := approvalwire.Decode([]byte(tt.data), tt.lim)
			var e *approvalwire.Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode = %+v, %v; want a *Error", c, err)
			}
			if c != nil {
				t.Errorf("Decode returned a call with its error: %+v", c)
			}
			if e.Message != prefix+tt.want {
				t.Errorf("message\n got %q\nwant %q", e.Message, prefix+tt.want)
			}
			if e.Path != tt.path {
				t.Errorf("path %q, want %q", e.Path, tt.path)
			}
			if e.Error() != e.Message {
				t.Errorf("Error() = %q, want the message", e.Error())
			}
		})
	}
}
