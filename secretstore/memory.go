package secretstore

import (
	"context"
	"sync"

	"github.com/askuser-go/askuser/secret"
)

// processRing is the key ring of every Memory made without one: a random key
// that lives as long as the process and is never written anywhere.
var processRing = sync.OnceValue(func() *KeyRing {
	k, err := RandomKey("process")
	if err != nil {
		panic(err) // the id is a valid constant
	}
	r, err := NewKeyRing(k)
	if err != nil {
		panic(err)
	}
	return r
})

// Memory is a [Store] that keeps sealed records in memory, for the life of
// the process. Only sealed records are held; a value is in clear only during
// a Put or a Get. A Memory is safe for concurrent use.
type Memory struct {
	ring *KeyRing
	mu   sync.RWMutex
	recs map[string]map[string][]byte // session → name → record
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store that seals with ring. With a nil
// ring it uses a random key made for the life of the process, which is what
// a store that cannot outlive the process needs.
func NewMemory(ring *KeyRing) *Memory {
	if ring == nil {
		ring = processRing()
	}
	return &Memory{ring: ring, recs: make(map[string]map[string][]byte)}
}

// Put implements [Store].
func (m *Memory) Put(ctx context.Context, session, name string, v secret.Value) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pt := v.Reveal()
	rec, err := Seal(m.ring, session, name, pt)
	clear(pt)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	names := m.recs[session]
	if names == nil {
		names = make(map[string][]byte)
		m.recs[session] = names
	}
	names[name] = rec
	return nil
}

// Get implements [Store].
func (m *Memory) Get(ctx context.Context, session, name string) (secret.Value, error) {
	if err := ctx.Err(); err != nil {
		return secret.Value{}, err
	}
	if err := checkNames(session, name); err != nil {
		return secret.Value{}, err
	}
	m.mu.RLock()
	rec, ok := m.recs[session][name]
	m.mu.RUnlock()
	if !ok {
		return secret.Value{}, notFound(session, name)
	}
	// Records are never changed in place (Put replaces the slice), so rec
	// can be read outside the lock.
	return openValue(m.ring, session, name, rec)
}

// Delete implements [Store].
func (m *Memory) Delete(ctx context.Context, session, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if names := m.recs[session]; names != nil {
		delete(names, name)
		if len(names) == 0 {
			delete(m.recs, session)
		}
	}
	return nil
}

// DeleteSession implements [Store].
func (m *Memory) DeleteSession(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, "-"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, session)
	return nil
}
