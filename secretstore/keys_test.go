package secretstore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func b64(k Key) string { return base64.StdEncoding.EncodeToString(k.Secret[:]) }

func TestParseKeys(t *testing.T) {
	k1, k2, k3 := testKey("k1", 1), testKey("k2", 2), testKey("k3", 3)
	tests := []struct {
		name string
		in   string
		want []string // ids, current first
	}{
		{"one", "k1:" + b64(k1), []string{"k1"}},
		{"comma-separated", "k2:" + b64(k2) + ",k1:" + b64(k1), []string{"k2", "k1"}},
		{"spaces", "  k2 : " + b64(k2) + " ,  k1:" + b64(k1) + "  ", []string{"k2", "k1"}},
		{"lines and comments", "# current\nk3:" + b64(k3) + "\n\n# old\nk2:" + b64(k2) + ",k1:" + b64(k1) + "\n", []string{"k3", "k2", "k1"}},
		{"unpadded", "k1:" + base64.RawStdEncoding.EncodeToString(k1.Secret[:]), []string{"k1"}},
		{"url alphabet", "k1:" + base64.URLEncoding.EncodeToString(k1.Secret[:]), []string{"k1"}},
		{"trailing comma", "k1:" + b64(k1) + ",", []string{"k1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseKeys(tt.in)
			if err != nil {
				t.Fatalf("ParseKeys: %v", err)
			}
			if diff := cmp.Diff(tt.want, r.IDs()); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want[0], r.Current()); diff != "" {
				t.Errorf("Current mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// The parsed secret is the one written.
	r, err := ParseKeys("k1:" + b64(k1))
	if err != nil {
		t.Fatalf("ParseKeys: %v", err)
	}
	if diff := cmp.Diff(k1.Secret, r.p.byID["k1"].secret); diff != "" {
		t.Errorf("secret mismatch (-want +got):\n%s", diff)
	}
}

func TestParseKeysErrors(t *testing.T) {
	k1 := testKey("k1", 1)
	secretB64 := b64(k1)
	short := base64.StdEncoding.EncodeToString(k1.Secret[:16])
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{"empty", "", "secretstore: no key: no keys found: write one or more <key-id>:<base64 of 32 bytes>, comma-separated, newest first", ErrNoKey},
		{"only comments", "# nothing\n", "secretstore: no key: no keys found: write one or more <key-id>:<base64 of 32 bytes>, comma-separated, newest first", ErrNoKey},
		{"no colon", secretB64, "secretstore: key 1 has no ':': write each key as <key-id>:<base64 of 32 bytes>", nil},
		{"empty id", ":" + secretB64, "secretstore: key 1: empty key id: a key id is 1 to 64 ASCII letters, digits, '.', '-' or '_'", nil},
		{"bad id", "k/1:" + secretB64, "secretstore: key 1: key id has a byte not allowed at offset 1: only ASCII letters, digits, '.', '-' and '_' are allowed", nil},
		{"reversed", secretB64 + ":k1", "secretstore: key 1: key id has a byte not allowed at offset 43: only ASCII letters, digits, '.', '-' and '_' are allowed", nil},
		{"long id", strings.Repeat("k", 65) + ":" + secretB64, "secretstore: key 1: key id is 65 bytes long: at most 64 are allowed", nil},
		{"not base64", "k1:" + strings.Repeat("!", 44), `secretstore: key 1 (id "k1") is not valid base64: write the secret as base64 of 32 random bytes`, nil},
		{"short secret", "k1:" + short, `secretstore: key 1 (id "k1") decodes to 16 bytes: exactly 32 are required`, nil},
		{"second bad", "k1:" + secretB64 + ",k2:" + short, `secretstore: key 2 (id "k2") decodes to 16 bytes: exactly 32 are required`, nil},
		{"duplicate", "k1:" + secretB64 + ",k1:" + secretB64, `secretstore: key 2 of 2: key id "k1" is used twice: each key in a ring needs its own id`, nil},
		{"all zeros", "k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32)), `secretstore: key 1 of 1 (id "k1") is all zeros: use RandomKey, PassphraseKey or 32 random bytes`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseKeys(tt.in)
			if err == nil {
				t.Fatalf("ParseKeys returned ring %v; want an error", r)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			for _, material := range []string{secretB64, short, secretB64[:8]} {
				if strings.Contains(err.Error(), material) {
					t.Errorf("error %q echoes key material", err)
				}
			}
		})
	}
}

func TestNewKeyRingErrors(t *testing.T) {
	tests := []struct {
		name string
		keys []Key
		want string
	}{
		{"none", nil, "secretstore: no key: a key ring needs at least one key"},
		{"bad id", []Key{testKey("k 1", 1)}, "secretstore: key 1 of 1: key id has a byte not allowed at offset 1: only ASCII letters, digits, '.', '-' and '_' are allowed"},
		{"empty id", []Key{testKey("", 1)}, "secretstore: key 1 of 1: empty key id: a key id is 1 to 64 ASCII letters, digits, '.', '-' or '_'"},
		{"zero secret", []Key{{ID: "k"}}, `secretstore: key 1 of 1 (id "k") is all zeros: use RandomKey, PassphraseKey or 32 random bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewKeyRing(tt.keys...)
			if err == nil {
				t.Fatal("NewKeyRing succeeded; want an error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewKeyRingCopies(t *testing.T) {
	keys := []Key{testKey("k1", 1)}
	r := mustRing(t, keys...)
	keys[0].Secret[0] ^= 0xff
	if diff := cmp.Diff(testKey("k1", 1).Secret, r.p.byID["k1"].secret); diff != "" {
		t.Errorf("changing the caller's slice changed the ring (-want +got):\n%s", diff)
	}
}

func TestKeysNeverPrinted(t *testing.T) {
	k := testKey("k1", 0x41)  // secret bytes are printable: "ABCD…"
	k0 := testKey("k0", 0x61) // "abcd…"
	r := mustRing(t, k, k0)
	material := []string{
		string(k.Secret[:8]), fmt.Sprintf("%x", k.Secret[:4]), fmt.Sprint(k.Secret[0]) + " " + fmt.Sprint(k.Secret[1]),
		b64(k)[:8], string(k0.Secret[:8]),
	}
	var out bytes.Buffer
	for _, v := range []any{k, &k, r, []Key{k}, struct{ K Key }{k}, struct{ r *KeyRing }{r}, struct{ r KeyRing }{*r}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
	}
	j, err := json.Marshal(struct{ K Key }{k})
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	out.Write(j)
	slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})).Debug("keys", "k", k, "r", r)
	slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})).Debug("keys", "k", k, "r", r)
	for _, m := range material {
		if strings.Contains(out.String(), m) {
			t.Errorf("key material %q printed in:\n%s", m, out.String())
		}
	}
	if diff := cmp.Diff(`{"K":{"ID":"k1","Secret":"[REDACTED]"}}`, string(j)); diff != "" {
		t.Errorf("json mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("secretstore.Key{ID:k1 Secret:[REDACTED]}", fmt.Sprintf("%#v", k)); diff != "" {
		t.Errorf("%%#v mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("secretstore.KeyRing{k1,k0}", r.String()); diff != "" {
		t.Errorf("KeyRing.String mismatch (-want +got):\n%s", diff)
	}
}

func TestPassphraseKey(t *testing.T) {
	salt := []byte("0123456789abcdef")
	a := PassphraseKey("p1", []byte("correct horse"), salt, cheapArgon2)
	b := PassphraseKey("p1", []byte("correct horse"), salt, cheapArgon2)
	if diff := cmp.Diff(a.Secret, b.Secret); diff != "" {
		t.Errorf("same inputs gave different keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("p1", a.ID); diff != "" {
		t.Errorf("ID mismatch (-want +got):\n%s", diff)
	}
	others := map[string]Key{
		"passphrase": PassphraseKey("p1", []byte("correct horsf"), salt, cheapArgon2),
		"salt":       PassphraseKey("p1", []byte("correct horse"), []byte("0123456789abcdeg"), cheapArgon2),
		"time":       PassphraseKey("p1", []byte("correct horse"), salt, Argon2Params{Time: 2, MemoryKiB: 64, Threads: 1}),
		"memory":     PassphraseKey("p1", []byte("correct horse"), salt, Argon2Params{Time: 1, MemoryKiB: 128, Threads: 1}),
	}
	for what, k := range others {
		if k.Secret == a.Secret {
			t.Errorf("changing the %s did not change the key", what)
		}
	}
	// Zero fields take the defaults; a too-small memory is raised, not a panic.
	tiny := PassphraseKey("p1", []byte("x"), salt, Argon2Params{Time: 1, MemoryKiB: 1, Threads: 2})
	if tiny.Secret == ([32]byte{}) {
		t.Error("PassphraseKey with MemoryKiB 1 gave a zero key")
	}
	if _, err := NewKeyRing(a); err != nil {
		t.Errorf("NewKeyRing of a passphrase key: %v", err)
	}
}

func TestRandomKey(t *testing.T) {
	a, err := RandomKey("r1")
	if err != nil {
		t.Fatalf("RandomKey: %v", err)
	}
	b, err := RandomKey("r1")
	if err != nil {
		t.Fatalf("RandomKey: %v", err)
	}
	if a.Secret == b.Secret || a.Secret == ([32]byte{}) {
		t.Error("RandomKey returned a repeated or zero secret")
	}
	if _, err := RandomKey("bad id"); err == nil {
		t.Error(`RandomKey("bad id") succeeded; want an error`)
	}
}

func TestKeysFromEnv(t *testing.T) {
	k1 := testKey("k1", 1)
	t.Setenv(KeyEnv, "k1:"+b64(k1))
	r, err := KeysFromEnv()
	if err != nil {
		t.Fatalf("KeysFromEnv: %v", err)
	}
	if diff := cmp.Diff([]string{"k1"}, r.IDs()); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}

	t.Setenv(KeyEnv, "  ")
	if _, err := KeysFromEnv(); !errors.Is(err, ErrNoKey) {
		t.Errorf("KeysFromEnv with a blank variable: error = %v; want ErrNoKey", err)
	}
	t.Setenv(KeyEnv, "k1:"+b64(k1)[:20])
	_, err = KeysFromEnv()
	if err == nil || !strings.HasPrefix(err.Error(), KeyEnv+": secretstore: key 1") {
		t.Errorf("KeysFromEnv with a bad key: error = %v; want one naming %s and the key", err, KeyEnv)
	}
	if err != nil && strings.Contains(err.Error(), b64(k1)[:20]) {
		t.Errorf("KeysFromEnv error echoes the key: %v", err)
	}
}

func TestKeysFromFile(t *testing.T) {
	k1 := testKey("k1", 1)
	dir := t.TempDir()
	good := filepath.Join(dir, "keys")
	if err := os.WriteFile(good, []byte("# askuser keys\nk1:"+b64(k1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := KeysFromFile(good)
	if err != nil {
		t.Fatalf("KeysFromFile: %v", err)
	}
	if diff := cmp.Diff([]string{"k1"}, r.IDs()); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}
	if _, err := KeysFromFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("KeysFromFile of a missing file: error = %v; want one wrapping ErrNotExist", err)
	}
	if runtime.GOOS != "windows" {
		open := filepath.Join(dir, "open")
		if err := os.WriteFile(open, []byte("k1:"+b64(k1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(open, 0o644); err != nil { // past the umask
			t.Fatal(err)
		}
		_, err := KeysFromFile(open)
		want := "secretstore: key file " + open + " has mode 0644: it must not be accessible by group or others (chmod 600 it)"
		if err == nil {
			t.Fatal("KeysFromFile of a world-readable file succeeded; want an error")
		}
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("error mismatch (-want +got):\n%s", diff)
		}
	}
}

// cheapArgon2 is as cheap as Argon2id allows, so the tests run fast; it
// gives a passphrase no protection against guessing.
var cheapArgon2 = Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}

// TestDerive: a derived key depends only on the ring's current key and the
// label: the same ring text gives the same key in another process (a
// fleet's replicas), other labels and other current keys give others, an
// older key behind the current one changes nothing, and no derived key is
// the secret itself.
func TestDerive(t *testing.T) {
	const a = "k2:" + "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
	const b = "k1:" + "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="
	derive := func(text, label string) [32]byte {
		t.Helper()
		r, err := ParseKeys(text)
		if err != nil {
			t.Fatal(err)
		}
		k, err := r.Derive(label)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := derive(a, "card access")
	if derive(a, "card access") != base {
		t.Error("the same ring and label derived two keys")
	}
	if derive(a+","+b, "card access") != base {
		t.Error("an older key behind the current one changed the derived key")
	}
	if derive(a, "card csrf") == base {
		t.Error("two labels derived one key")
	}
	if derive(b+","+a, "card access") == base {
		t.Error("another current key derived the same key")
	}
	secret := [32]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}
	if base == secret {
		t.Error("the derived key is the secret itself")
	}
}
