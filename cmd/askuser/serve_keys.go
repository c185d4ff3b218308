package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/serve"
)

// The key ring of a fleet. Every replica of askuser serve reads the same
// key ring (--key-file, $ASKUSER_SECRET_KEY, or the key file beside the
// embedded server's state): it seals the secrets in the store, and the
// card's access and CSRF keys derive from its current key (serve.CardConfig),
// so that a card URL made by one replica opens the card on every replica.

// keyMaterial is a key ring and where it came from, for messages.
type keyMaterial struct {
	ring   *secretstore.KeyRing
	source string
}

// keyFromFile reads a key file: its ring, with the checks every key file
// gets (a regular file, its size, its mode).
func keyFromFile(what, name string) (keyMaterial, error) {
	ring, err := readKeyFile(what, name)
	if err != nil {
		return keyMaterial{}, err
	}
	return keyMaterial{ring: ring, source: name}, nil
}

// keyFromEnv reads the ring in $ASKUSER_SECRET_KEY.
func keyFromEnv() (keyMaterial, error) {
	ring, err := secretstore.KeysFromEnv()
	if err != nil {
		return keyMaterial{}, err
	}
	return keyMaterial{ring: ring, source: "$" + secretstore.KeyEnv}, nil
}

// maxServeTokenBytes caps serve's token file: a token for every session,
// or a line of a session prefix and a token for each of many tenants.
const maxServeTokenBytes = 256 << 10

// serveTokens reads the agent API's token file: one token, for every
// session (made, with a random token, when the file does not exist: made
// reports so), or lines of a session prefix and a token, one per tenant
// (serve.ParseTokens). Like a key file, it must be a regular file that
// group and others cannot read or write.
func serveTokens(file string) (ts []serve.Tenant, made bool, err error) {
	const what = "--token-file"
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		t, made, err := bearerToken(what, file)
		if err != nil {
			return nil, false, err
		}
		return []serve.Tenant{{Token: t}}, made, nil
	}
	f, fi, err := openRegular(what, file, "keep the tokens in a regular file of mode 0600")
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if checkKeyMode && fi.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("%s %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", what, file, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxServeTokenBytes+1))
	defer clear(data)
	switch {
	case err != nil:
		return nil, false, fileError(what, file, err)
	case len(data) > maxServeTokenBytes:
		return nil, false, fmt.Errorf("%s %s is larger than %s, the most askuser reads of a token file", what, file, hostcheck.Bytes(maxServeTokenBytes))
	}
	if ts, err = serve.ParseTokens(string(data)); err != nil {
		return nil, false, fmt.Errorf("%s %s: %w", what, file, err)
	}
	return ts, false, nil
}

// describeTokens says, for serve's start-up line, what the token file
// holds.
func describeTokens(ts []serve.Tenant, file string) string {
	scoped := 0
	for _, t := range ts {
		if t.Prefix != "" {
			scoped++
		}
	}
	if scoped == 0 && len(ts) == 1 {
		return "bearer token in " + file
	}
	return fmt.Sprintf("%d bearer tokens in %s, %d of them scoped to a session prefix", len(ts), file, scoped)
}
