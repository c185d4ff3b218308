package mcpresponder

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
)

// FuzzTaskParams: the JSON-RPC messages and the task requests' params
// are the client's, and untrusted. Whatever they are, reading them does
// not panic; a message read is a request (an id that is a string or a
// number) or a notification; params read carry a task id that is safe as
// a store key, and inputResponses that are objects, under keys of bounded
// length.
func FuzzTaskParams(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"0123456789abcdef0123456789abcdef"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tasks/update","params":{"taskId":"t","inputResponses":{"askuser-1":{"action":"accept","content":{"env":"production"}}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":"t","inputResponses":{"askuser-1":[1,2]}}}`,
		`{"jsonrpc":"2.0","method":"tasks/cancel","params":{"taskId":"t"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tasks/get","params":{"taskId":"../../etc"}}`,
		`{"jsonrpc":"2.0","id":{},"method":"tasks/get","params":[]}`,
		`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":7,"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":"taskId"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, ok := parseMessage(frame)
		if !ok {
			return
		}
		if m.ID != nil {
			var id any
			if err := json.Unmarshal(m.ID, &id); err != nil {
				t.Fatalf("the id %q is not JSON: %v", m.ID, err)
			}
			switch id.(type) {
			case string, float64:
			default:
				t.Fatalf("the id %s is neither a string nor a number", m.ID)
			}
		}
		for _, method := range []string{methodGet, methodUpdate, methodCancel} {
			p, err := parseTaskParams(method, m.Params)
			if err != nil {
				if !strings.HasPrefix(err.Error(), method+": ") {
					t.Fatalf("the refusal %q does not name the method", err)
				}
				continue
			}
			if !validTaskID(p.TaskID) || strings.ContainsAny(p.TaskID, "./ ") {
				t.Fatalf("the task id %q is not safe as a key", p.TaskID)
			}
			if method == methodUpdate && p.Responses == nil {
				t.Fatal("tasks/update's params read without inputResponses")
			}
			for k, v := range p.Responses {
				if len(k) > maxTaskID {
					t.Fatalf("a key of %d bytes was taken", len(k))
				}
				var obj map[string]any
				if json.Unmarshal(v, &obj) != nil {
					t.Fatalf("the response %q is not an object", v)
				}
				_ = readResponse(v)
			}
			_ = declaresTasks(p.Meta)
		}
	})
}

// TestTaskFilterLines: Filter hands the SDK every frame that is not the
// extension's byte for byte — a line longer than DefaultMaxFrame too, and
// the last line without its newline — and answers the extension's frames
// itself.
func TestTaskFilterLines(t *testing.T) {
	ts := &Tasks{}
	defer ts.Close()
	long := `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"` + strings.Repeat("a", DefaultMaxFrame) + `"}}` + "\n"
	get := `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"abc","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}` + "\n"
	ping := `{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n"
	last := `{"jsonrpc":"2.0","id":10,"method":"ping"}`
	var out lockedBuffer
	r, _ := ts.Filter(io.NopCloser(strings.NewReader(ping+long+get+last)), nopCloser{&out})
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := ping + long + last; string(passed) != want {
		t.Errorf("the SDK was handed %d bytes; want the %d of the frames that are not the extension's", len(passed), len(want))
	}
	ts.Close() // waits for the answer
	var reply struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.bytes(), &reply); err != nil || reply.ID != 7 || reply.Error.Code != codeInvalidParams || !strings.Contains(reply.Error.Message, "Task not found") {
		t.Errorf("the answer to tasks/get: %s (%v); want -32602, not found, for id 7", out.bytes(), err)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
