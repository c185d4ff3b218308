package secretstore

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"golang.org/x/crypto/nacl/secretbox"

	"github.com/askuser-go/askuser/secret"
)

var benchSizes = []struct {
	name string
	n    int
}{
	{"64B", 64},
	{"4KiB", 4 << 10},
}

// BenchmarkMemoryPutGet seals and stores a value, then opens it again: the
// whole cost of a secret answer and its use. Compare with
// BenchmarkRawSecretbox, its baseline.
func BenchmarkMemoryPutGet(b *testing.B) {
	ctx := context.Background()
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			m := NewMemory(mustRing(b, testKey("k1", 1)))
			v := secret.New(make([]byte, size.n))
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Put(ctx, "session", "name", v); err != nil {
					b.Fatal(err)
				}
				got, err := m.Get(ctx, "session", "name")
				if err != nil {
					b.Fatal(err)
				}
				got.Wipe()
			}
		})
	}
}

// BenchmarkRawSecretbox is the floor under BenchmarkMemoryPutGet: one
// secretbox.Seal and one secretbox.Open of the same size under a fixed key,
// with a fresh nonce from crypto/rand each time.
func BenchmarkRawSecretbox(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			key := testKey("k1", 1).Secret
			msg := make([]byte, size.n)
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				var nonce [24]byte
				rand.Read(nonce[:])
				box := secretbox.Seal(nil, msg, &nonce, &key)
				out, ok := secretbox.Open(nil, box, &nonce, &key)
				if !ok || len(out) != size.n {
					b.Fatal("secretbox.Open failed")
				}
			}
		})
	}
}

// BenchmarkSeal and BenchmarkOpen split the store's cost in two, to show
// where time goes beyond the raw box (the HKDF subkey, the header).
func BenchmarkSeal(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			r := mustRing(b, testKey("k1", 1))
			msg := make([]byte, size.n)
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Seal(r, "session", "name", msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			r := mustRing(b, testKey("k1", 1))
			rec := mustSeal(b, r, "session", "name", make([]byte, size.n))
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Open(r, "session", "name", rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSubkey is the HKDF-Expand every Seal and Open pays.
func BenchmarkSubkey(b *testing.B) {
	r := mustRing(b, testKey("k1", 1))
	key, _ := r.key("k1")
	hdr := []byte("as\x01\x02k1")
	nonce := make([]byte, nonceLen)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := subkey(key, hdr, nonce, "session", "name"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutGetVsRaw alternates small batches of the two loops above and
// times each batch, so both see the same machine load; it reports the
// store's cost as a multiple of the raw box ("x-raw"), which stays
// meaningful on a busy machine where separate benchmarks drift apart.
func BenchmarkPutGetVsRaw(b *testing.B) {
	const batch = 16
	ctx := context.Background()
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			m := NewMemory(mustRing(b, testKey("k1", 1)))
			v := secret.New(make([]byte, size.n))
			key := testKey("k1", 1).Secret
			msg := make([]byte, size.n)
			var store, raw time.Duration
			var rounds int
			for b.Loop() {
				start := time.Now()
				for range batch {
					if err := m.Put(ctx, "session", "name", v); err != nil {
						b.Fatal(err)
					}
					got, err := m.Get(ctx, "session", "name")
					if err != nil {
						b.Fatal(err)
					}
					got.Wipe()
				}
				mid := time.Now()
				for range batch {
					var nonce [24]byte
					rand.Read(nonce[:])
					box := secretbox.Seal(nil, msg, &nonce, &key)
					if _, ok := secretbox.Open(nil, box, &nonce, &key); !ok {
						b.Fatal("secretbox.Open failed")
					}
				}
				store += mid.Sub(start)
				raw += time.Since(mid)
				rounds++
			}
			n := float64(rounds * batch)
			b.ReportMetric(float64(store.Nanoseconds())/n, "store-ns/op")
			b.ReportMetric(float64(raw.Nanoseconds())/n, "raw-ns/op")
			b.ReportMetric(float64(store)/float64(raw), "x-raw")
		})
	}
}
