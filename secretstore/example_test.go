package secretstore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// A person's answer is stored under a session; a tool later resolves the
// reference the model saw, "session:db_password", in that session only.
func Example() {
	ctx := context.Background()
	key, err := secretstore.RandomKey("2026-01")
	if err != nil {
		panic(err)
	}
	ring, err := secretstore.NewKeyRing(key)
	if err != nil {
		panic(err)
	}
	store := secretstore.NewMemory(ring)

	answer := secret.FromString("hunter2")
	if err := store.Put(ctx, "session-42", "db_password", answer); err != nil {
		panic(err)
	}
	answer.Wipe()
	ref := secretstore.Ref("db_password")
	fmt.Println("the model sees:", ref)

	// The tool runs with the session in its context.
	v, err := secretstore.Resolve(secretstore.WithSession(ctx, "session-42"), store, ref)
	if err != nil {
		panic(err)
	}
	fmt.Println("printed:", v)
	fmt.Println("the tool uses:", string(v.Reveal()))

	// Another session holds no such secret.
	_, err = secretstore.Resolve(secretstore.WithSession(ctx, "session-7"), store, ref)
	fmt.Println("another session:", errors.Is(err, secretstore.ErrNotFound))
	// Output:
	// the model sees: session:db_password
	// printed: [REDACTED]
	// the tool uses: hunter2
	// another session: true
}

// Keys rotate: records sealed under the old key still open once a new key
// leads the ring, and stop opening once the old key is dropped.
func Example_rotation() {
	k1, _ := secretstore.RandomKey("k1")
	k2, _ := secretstore.RandomKey("k2")

	before, _ := secretstore.NewKeyRing(k1)
	record, err := secretstore.Seal(before, "s", "token", []byte("t0ken"))
	if err != nil {
		panic(err)
	}

	after, _ := secretstore.NewKeyRing(k2, k1) // k2 seals from now on
	plain, err := secretstore.Open(after, "s", "token", record)
	fmt.Println(string(plain), err)

	resealed, _ := secretstore.Seal(after, "s", "token", plain)
	id, _ := secretstore.KeyID(resealed)
	fmt.Println("re-sealed under", id)

	dropped, _ := secretstore.NewKeyRing(k2)
	_, err = secretstore.Open(dropped, "s", "token", record)
	fmt.Println(errors.Is(err, secretstore.ErrOpen))
	// Output:
	// t0ken <nil>
	// re-sealed under k2
	// true
}

// Keys come from the environment as "<key-id>:<base64 of 32 bytes>",
// newest first.
func ExampleParseKeys() {
	ring, err := secretstore.ParseKeys("k2:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=, k1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=")
	if err != nil {
		panic(err)
	}
	fmt.Println(ring.Current(), ring.IDs())
	fmt.Println(ring)

	_, err = secretstore.ParseKeys("k1:c2hvcnQ=")
	fmt.Println(err)
	// Output:
	// k2 [k2 k1]
	// secretstore.KeyRing{k2,k1}
	// secretstore: key 1 (id "k1") decodes to 5 bytes: exactly 32 are required
}
