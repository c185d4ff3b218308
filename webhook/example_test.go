package webhook_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/askuser-go/askuser/webhook"
)

// A receiver checks every delivery before it keeps it.
func ExampleVerify() {
	secret := []byte("0123456789abcdef0123456789abcdef") // the serve --webhook-secret-file's content
	handler := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, time.Now(), 0); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		// Keep the result by r.Header.Get(webhook.IDHeader), once.
		w.WriteHeader(http.StatusNoContent)
	}
	_ = handler

	body := []byte(`{"ask_id":"a1"}`)
	header := webhook.Sign(secret, time.Unix(1733097600, 0), body)
	fmt.Println(header)
	fmt.Println(webhook.Verify(secret, header, body, time.Unix(1733097660, 0), 0))
	fmt.Println(webhook.Verify(secret, header, body, time.Unix(1733097600+3600, 0), 0))
	// Output:
	// t=1733097600,v1=86c50214eb6426c3b5cbd7bb039b56ba36e9a829c9adb5e178c7b66b566535b0
	// <nil>
	// webhook: the timestamp is too far from now: it is 1h0m0s from this clock; at most 5m0s is taken
}
