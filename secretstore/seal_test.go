package secretstore

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testKey returns a fixed key, so that failures reproduce.
func testKey(id string, fill byte) Key {
	k := Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = fill + byte(i)
	}
	return k
}

func mustRing(t testing.TB, keys ...Key) *KeyRing {
	t.Helper()
	r, err := NewKeyRing(keys...)
	if err != nil {
		t.Fatalf("NewKeyRing: %v", err)
	}
	return r
}

func mustSeal(t testing.TB, r *KeyRing, session, name string, pt []byte) []byte {
	t.Helper()
	rec, err := Seal(r, session, name, pt)
	if err != nil {
		t.Fatalf("Seal(%q, %q): %v", session, name, err)
	}
	return rec
}

// wantOpenErr checks that err is exactly ErrOpen: errors.Is, and the same
// message, so that the message cannot say why.
func wantOpenErr(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, ErrOpen) {
		t.Errorf("%s: error = %v; want ErrOpen", what, err)
		return
	}
	if diff := cmp.Diff(ErrOpen.Error(), err.Error()); diff != "" {
		t.Errorf("%s: message differs from ErrOpen's (-want +got):\n%s", what, diff)
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	r := mustRing(t, testKey("k1", 1))
	tests := []struct {
		name          string
		session, secr string
		pt            []byte
	}{
		{"ordinary", "sess-1", "db_password", []byte("hunter2")},
		{"empty secret", "s", "n", []byte{}},
		{"binary", "s", "n", []byte{0, 1, 2, 0xff, 0}},
		{"large", "s", "n", bytes.Repeat([]byte("x"), 64<<10)},
		{"largest", "s", "n", bytes.Repeat([]byte("y"), MaxValueLen)},
		{"odd names", "../x\x00/", "a:b/../c", []byte("v")},
		{"long names", string(bytes.Repeat([]byte("s"), MaxNameLen)), string(bytes.Repeat([]byte("n"), MaxNameLen)), []byte("v")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := mustSeal(t, r, tt.session, tt.secr, tt.pt)
			got, err := Open(r, tt.session, tt.secr, rec)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			// cmp.Diff walks a []byte element by element, too slowly for
			// a megabyte; compare first and diff only on a mismatch.
			if !bytes.Equal(tt.pt, got) {
				t.Errorf("Open mismatch (-want +got):\n%s", cmp.Diff(tt.pt, got))
			}
			id, err := KeyID(rec)
			if err != nil {
				t.Fatalf("KeyID: %v", err)
			}
			if diff := cmp.Diff("k1", id); diff != "" {
				t.Errorf("KeyID mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSealRefuses(t *testing.T) {
	r := mustRing(t, testKey("k1", 1))
	long := string(bytes.Repeat([]byte("a"), MaxNameLen+1))
	tests := []struct {
		name                string
		ring                *KeyRing
		session, secretName string
		pt                  []byte
		wantErr             error
		wantMsg             string
	}{
		{"nil ring", nil, "s", "n", nil, ErrNoKey, "secretstore: no key: Seal needs a key ring"},
		{"empty session", r, "", "n", nil, nil, "secretstore: empty session id: a secret belongs to a session, so one is required"},
		{"empty name", r, "s", "", nil, nil, "secretstore: empty secret name: a secret is stored under a non-empty name"},
		{"long session", r, long, "n", nil, nil, "secretstore: session id is 65537 bytes long: at most 65536 are allowed"},
		{"long name", r, "s", long, nil, nil, "secretstore: secret name is 65537 bytes long: at most 65536 are allowed"},
		{"large value", r, "s", "n", make([]byte, MaxValueLen+1), nil, "secretstore: secret is 1048577 bytes long: at most 1048576 are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Seal(tt.ring, tt.session, tt.secretName, tt.pt)
			if err == nil {
				t.Fatalf("Seal returned a %d-byte record; want an error", len(rec))
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Seal error = %v; want one wrapping %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("Seal error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenTamperedBits(t *testing.T) {
	r := mustRing(t, testKey("k1", 1))
	rec := mustSeal(t, r, "s", "n", []byte("a secret value"))
	for i := range rec {
		for bit := range 8 {
			bad := bytes.Clone(rec)
			bad[i] ^= 1 << bit
			_, err := Open(r, "s", "n", bad)
			wantOpenErr(t, "flipped bit", err)
			if t.Failed() {
				t.Fatalf("byte %d bit %d of %d", i, bit, len(rec))
			}
		}
	}
}

func TestOpenTruncated(t *testing.T) {
	r := mustRing(t, testKey("k1", 1))
	rec := mustSeal(t, r, "s", "n", []byte("a secret value"))
	for n := range len(rec) {
		_, err := Open(r, "s", "n", rec[:n])
		wantOpenErr(t, "truncated", err)
		if t.Failed() {
			t.Fatalf("truncated to %d of %d bytes", n, len(rec))
		}
	}
	// Extended records do not open either.
	_, err := Open(r, "s", "n", append(bytes.Clone(rec), 0))
	wantOpenErr(t, "extended by a byte", err)
}

func TestOpenRefuses(t *testing.T) {
	k1, k2 := testKey("k1", 1), testKey("k2", 2)
	r1 := mustRing(t, k1)
	rec := mustSeal(t, r1, "s", "n", []byte("v"))
	// A ring where k1's secret also sits under another id: a record whose
	// header names that id must not open, since the header is bound.
	twin := mustRing(t, k1, Key{ID: "k9", Secret: k1.Secret})
	relabeled := bytes.Clone(rec)
	relabeled[4+1] = '9' // "k1" → "k9"
	tests := []struct {
		name           string
		ring           *KeyRing
		session, sname string
		rec            []byte
	}{
		{"unknown key id", mustRing(t, k2), "s", "n", rec},
		{"other session", r1, "t", "n", rec},
		{"other name", r1, "s", "m", rec},
		{"session and name swapped", r1, "n", "s", rec},
		{"length-prefix ambiguity", r1, "sn", "", rec},
		{"relabeled key id", twin, "s", "n", relabeled},
		{"bad version", r1, "s", "n", append([]byte{magic0, magic1, 2}, rec[3:]...)},
		{"bad magic", r1, "s", "n", append([]byte{'x', magic1}, rec[2:]...)},
		{"empty", r1, "s", "n", nil},
		{"zero key id length", r1, "s", "n", append([]byte{magic0, magic1, version1, 0}, rec[4:]...)},
		{"key id too long", r1, "s", "n", append([]byte{magic0, magic1, version1, MaxKeyIDLen + 1}, bytes.Repeat([]byte("k"), 200)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Open(tt.ring, tt.session, tt.sname, tt.rec)
			if got != nil {
				t.Errorf("Open returned %d bytes; want none", len(got))
			}
			wantOpenErr(t, "Open", err)
		})
	}
	if _, err := Open(nil, "s", "n", rec); !errors.Is(err, ErrNoKey) {
		t.Errorf("Open with a nil ring: error = %v; want ErrNoKey", err)
	}
}

func TestRotation(t *testing.T) {
	k1, k2 := testKey("k1", 1), testKey("k2", 2)
	old := mustSeal(t, mustRing(t, k1), "s", "n", []byte("sealed under k1"))

	rotated := mustRing(t, k2, k1)
	got, err := Open(rotated, "s", "n", old)
	if err != nil {
		t.Fatalf("Open under (k2, k1) of a record sealed under k1: %v", err)
	}
	if diff := cmp.Diff("sealed under k1", string(got)); diff != "" {
		t.Errorf("Open mismatch (-want +got):\n%s", diff)
	}
	resealed := mustSeal(t, rotated, "s", "n", got)
	id, err := KeyID(resealed)
	if err != nil {
		t.Fatalf("KeyID: %v", err)
	}
	if diff := cmp.Diff("k2", id); diff != "" {
		t.Errorf("a new seal used the wrong key (-want +got):\n%s", diff)
	}

	dropped := mustRing(t, k2)
	_, err = Open(dropped, "s", "n", old)
	wantOpenErr(t, "Open after k1 was dropped", err)
	if _, err := Open(dropped, "s", "n", resealed); err != nil {
		t.Errorf("Open of the re-sealed record after k1 was dropped: %v", err)
	}
}

func TestNoRepeatedNonce(t *testing.T) {
	const n = 100_000
	r := mustRing(t, testKey("k1", 1))
	seen := make(map[[nonceLen]byte]int, n)
	pt := []byte("v")
	off := 4 + len("k1")
	for i := range n {
		rec, err := Seal(r, "s", "n", pt)
		if err != nil {
			t.Fatalf("Seal %d: %v", i, err)
		}
		nonce := [nonceLen]byte(rec[off : off+nonceLen])
		if j, dup := seen[nonce]; dup {
			t.Fatalf("seal %d repeated the nonce of seal %d", i, j)
		}
		seen[nonce] = i
	}
	if diff := cmp.Diff(n, len(seen)); diff != "" {
		t.Errorf("distinct nonces (-want +got):\n%s", diff)
	}
}

func TestKeyIDRefusesGarbage(t *testing.T) {
	for _, rec := range [][]byte{nil, []byte("as"), []byte("as\x01\x02k1"), []byte("xx\x01\x02k1" + string(make([]byte, 64)))} {
		_, err := KeyID(rec)
		wantOpenErr(t, "KeyID", err)
	}
}
