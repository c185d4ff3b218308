package main

import (
	"github.com/askuser-go/askuser/secretstore"
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
