package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// A Consent is a person's decision remembered for the rest of a session:
// they approved (or denied) an action "for this session", and a later
// request in the session with the same digest is decided the same way
// without asking.
type Consent struct {
	// Session is the session the decision holds for.
	Session string `json:"session"`
	// Digest is the approval's digest (approval.Digest).
	Digest string `json:"digest"`
	// Approved is the decision: true approved, false denied.
	Approved bool `json:"approved"`
	// Action is the action approved or denied, for a listing.
	Action string `json:"action"`
	// AskID is the ask in which the person decided.
	AskID string `json:"ask_id"`
	// Principal is who decided, where the responder said.
	Principal string `json:"principal,omitempty"`
	// DecidedAt is when.
	DecidedAt time.Time `json:"decided_at"`
}

// Consents keeps remembered approval decisions. Only a person's explicit
// choice for the session creates one — never a deadline, a policy or a
// fault. The orchestrator's default, MemoryConsents, forgets at exit; a
// store that outlives the process (journal.Consents, natsstore's) keeps them
// across restarts. The embedding program lists and revokes decisions
// through the same store (the one set as askuser.Orchestrator.Consents).
// Implementations are safe for concurrent use.
type Consents interface {
	// Remember keeps c, replacing any decision for its session and digest.
	Remember(ctx context.Context, c Consent) error
	// Recall returns the decision for the session and digest, if any.
	Recall(ctx context.Context, session, digest string) (Consent, bool, error)
	// Consents lists the session's decisions, oldest first.
	Consents(ctx context.Context, session string) ([]Consent, error)
	// Revoke forgets the decision for the session and digest; revoking
	// what is not remembered is not an error.
	Revoke(ctx context.Context, session, digest string) error
}

// MemoryConsents is a Consents store in memory. The zero value is ready to
// use.
type MemoryConsents struct {
	mu sync.Mutex
	m  map[[2]string]Consent
}

// Remember keeps c.
func (m *MemoryConsents) Remember(_ context.Context, c Consent) error {
	if c.Session == "" || c.Digest == "" {
		return errors.New("askuser: a consent needs a session and a digest")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[[2]string]Consent{}
	}
	m.m[[2]string{c.Session, c.Digest}] = c
	return nil
}

// Recall returns the decision for the session and digest.
func (m *MemoryConsents) Recall(_ context.Context, session, digest string) (Consent, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.m[[2]string{session, digest}]
	return c, ok, nil
}

// Consents lists the session's decisions, oldest first.
func (m *MemoryConsents) Consents(_ context.Context, session string) ([]Consent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Consent
	for k, c := range m.m {
		if k[0] == session {
			out = append(out, c)
		}
	}
	SortConsents(out)
	return out, nil
}

// Revoke forgets the decision for the session and digest.
func (m *MemoryConsents) Revoke(_ context.Context, session, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, [2]string{session, digest})
	return nil
}

// SortConsents sorts decisions oldest first (then by digest), the order
// Consents.Consents lists them in.
func SortConsents(cs []Consent) {
	slices.SortFunc(cs, func(a, b Consent) int {
		if c := a.DecidedAt.Compare(b.DecidedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Digest, b.Digest)
	})
}
