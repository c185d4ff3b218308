package askuser

import (
	"testing"

	"github.com/askuser-go/askuser/dialect"
)

// FuzzDecodeCall holds any input to auAgrees: what the root package adds
// to the ask_user dialect (the *dialect.CallError, checkForm, the mapping onto a
// Form, the compaction, MarshalForm) agrees with askuserwire on it. The
// decoder itself is fuzzed against encoding/json by askuserwire's
// FuzzDecode.
func FuzzDecodeCall(f *testing.F) {
	for _, data := range auValidCalls(f) {
		f.Add(data)
	}
	for _, s := range []string{
		auCall(auText, auChoice), `{"questions":[{"Header":"H"}]}`, `{"questions":null,"timeout_seconds":1e1}`,
		`{"timeout_seconds":1.5}`, `[`, `{"questions":[{"kind":"text","header":"\ud800\u00e9","question":"x"}]}`,
		`{"human_intent":7}`,
	} {
		f.Add([]byte(s))
	}
	lim := dialect.Limits{MaxTimeoutSeconds: 300, MaxCallBytes: 8 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		auAgrees(t, data, lim)
	})
}
