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

// Memory is a [Store] and a [Stager] that keeps sealed records in memory,
// for the life of the process. Only sealed records are held; a value is in
// clear only during a Put, a Stage or a Get. A Memory is safe for concurrent
// use.
type Memory struct {
	ring   *KeyRing
	mu     sync.RWMutex
	recs   map[string]map[string][]byte // session → name → record
	staged map[string]stagedRecord      // by id
}

// stagedRecord is a value a Memory keeps aside until Commit or Discard.
type stagedRecord struct {
	session, name string
	rec           []byte
}

var _ Stager = (*Memory)(nil)

// NewMemory returns an empty in-memory store that seals with ring. With a nil
// ring it uses a random key made for the life of the process, which is what
// a store that cannot outlive the process needs.
func NewMemory(ring *KeyRing) *Memory {
	if ring == nil {
		ring = processRing()
	}
	return &Memory{ring: ring, recs: make(map[string]map[string][]byte), staged: make(map[string]stagedRecord)}
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
	m.putLocked(session, name, rec)
	return nil
}

func (m *Memory) putLocked(session, name string, rec []byte) {
	names := m.recs[session]
	if names == nil {
		names = make(map[string][]byte)
		m.recs[session] = names
	}
	names[name] = rec
}

// Stage implements [Stager].
func (m *Memory) Stage(ctx context.Context, session, name string, v secret.Value) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	pt := v.Reveal()
	rec, err := Seal(m.ring, session, name, pt)
	clear(pt)
	if err != nil {
		return "", err
	}
	id := newStageID()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.staged[id] = stagedRecord{session: session, name: name, rec: rec}
	return id, nil
}

// Commit implements [Stager].
func (m *Memory) Commit(ctx context.Context, session, name, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.staged[id]
	if !ok || st.session != session || st.name != name {
		return notStaged(session, name)
	}
	delete(m.staged, id)
	m.putLocked(session, name, st.rec)
	return nil
}

// Discard implements [Stager].
func (m *Memory) Discard(ctx context.Context, session, name, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if st, ok := m.staged[id]; ok && st.session == session && st.name == name {
		delete(m.staged, id)
	}
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
	for id, st := range m.staged {
		if st.session == session {
			delete(m.staged, id)
		}
	}
	return nil
}
