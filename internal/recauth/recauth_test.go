package recauth_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/secretstore"
)

func keys(t testing.TB, label string) *recauth.Keys {
	t.Helper()
	k := secretstore.Key{ID: "k1"}
	copy(k.Secret[:], "0123456789abcdef0123456789abcdef")
	r, err := secretstore.NewKeyRing(k)
	if err != nil {
		t.Fatal(err)
	}
	return recauth.New(r, label)
}

// TestSealVerify: a sealed line verifies, under its own label only; the
// chain accepts it in its place and refuses it out of it.
func TestSealVerify(t *testing.T) {
	k := keys(t, recauth.LabelJournal)
	l1, m1, err := k.Seal([]byte(`{"a":1}`), "", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	l2, m2, err := k.Seal([]byte(`{"a":2,"auth":{"x":1},"b":{"auth":{}}}`), "", 2, m1)
	if err != nil {
		t.Fatal(err)
	}
	var c recauth.Chain
	c.Link(nil)
	for i, l := range [][]byte{l1, l2} {
		a, mac, err := k.Verify(l)
		if err != nil {
			t.Fatalf("line %d %s: %v", i+1, l, err)
		}
		if err := c.Next(a, mac); err != nil {
			t.Fatalf("line %d out of place: %v", i+1, err)
		}
	}
	if !bytes.Equal(c.MAC, m2) {
		t.Fatal("the chain's head is not the last line's MAC")
	}
	if _, _, err := keys(t, recauth.LabelConsent).Verify(l1); !errors.Is(err, recauth.ErrBadMAC) {
		t.Fatalf("a journal line verifies as a consent: %v", err)
	}
	if _, _, err := k.Verify([]byte(`{"a":1}`)); !errors.Is(err, recauth.ErrUnauthenticated) {
		t.Fatalf("a line without auth: %v", err)
	}
	c.Link(nil)
	a, mac, _ := k.Verify(l2)
	if err := c.Next(a, mac); !errors.Is(err, recauth.ErrChain) {
		t.Fatalf("the second line first: %v", err)
	}
	for _, bad := range []string{`[1]`, `{}`, `{"a":1`} {
		if _, _, err := k.Seal([]byte(bad), "", 1, nil); err == nil {
			t.Errorf("Seal(%s) succeeded", bad)
		}
	}
}

// FuzzVerify: Verify never panics, and a line that verifies is the sealed
// line itself (save for trailing white space): no change to a sealed line
// verifies.
func FuzzVerify(f *testing.F) {
	k := keys(f, recauth.LabelJournal)
	good, mac, err := k.Seal([]byte(`{"v":2,"ask_id":"a","result":{"status":"approved"}}`), "", 1, nil)
	if err != nil {
		f.Fatal(err)
	}
	next, _, _ := k.Seal([]byte(`{"v":2,"ask_id":"b"}`), "w-1", 2, mac)
	for _, s := range [][]byte{good, next, []byte(`{"auth":{}}`), []byte(`{"a":1,"auth":{"key":"k1","seq":1,"mac":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}`), nil} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_, _, err := recauth.Split(line)
		a, _, verr := k.Verify(line)
		if verr == nil {
			if err != nil {
				t.Fatalf("Verify accepted what Split refused: %v", err)
			}
			trim := bytes.TrimRight(line, " \t\r\n")
			if !bytes.Equal(trim, good) && !bytes.Equal(trim, next) {
				t.Fatalf("a line that was never sealed verifies: %q (seq %d)", line, a.Seq)
			}
		}
	})
}

// BenchmarkSealVerify is the MAC alone, on a record of a typical size.
func BenchmarkSealVerify(b *testing.B) {
	k := keys(b, recauth.LabelJournal)
	body := []byte(`{"v":2,"ask_id":"a","session":"s1","tool_call_id":"tc","contract":"request_approval","questions":[{"id":"approval","kind":"choice","text":"` + strings.Repeat("x", 600) + `"}],"status":"answered","result":{"status":"approved"}}`)
	line, mac, _ := k.Seal(body, "", 1, nil)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := k.Seal(body, "", 2, mac); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := k.Verify(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
