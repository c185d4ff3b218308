package secretstore_test

import (
	"errors"
	"testing"

	"github.com/askuser-go/askuser/secretstore"
)

// TestDeriveWith: DeriveWith of the current key is Derive; of an older key
// of the ring it is what Derive gave before the rotation; of an id the
// ring does not hold it is an error wrapping ErrNoKey.
func TestDeriveWith(t *testing.T) {
	k1, _ := secretstore.RandomKey("k1")
	k2, _ := secretstore.RandomKey("k2")
	before, err := secretstore.NewKeyRing(k1)
	if err != nil {
		t.Fatal(err)
	}
	after, err := secretstore.NewKeyRing(k2, k1)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := before.Derive("label")
	cur, _ := after.Derive("label")
	if got, err := after.DeriveWith("k1", "label"); err != nil || got != old {
		t.Fatalf("DeriveWith(k1) after the rotation differs from Derive before it (err %v)", err)
	}
	if got, err := after.DeriveWith("k2", "label"); err != nil || got != cur || got == old {
		t.Fatalf("DeriveWith(k2) is not Derive of the current key (err %v)", err)
	}
	if other, _ := after.DeriveWith("k2", "other"); other == cur {
		t.Fatal("two labels derive the same key")
	}
	if _, err := after.DeriveWith("k3", "label"); !errors.Is(err, secretstore.ErrNoKey) {
		t.Fatalf("DeriveWith of an unknown id = %v, want ErrNoKey", err)
	}
}
