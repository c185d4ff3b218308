package askuser_test

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

type slogLogger = slog.Logger

func newDiscardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// recordingStore is a secret store for tests that keeps plaintext in memory,
// so a test can check what was stored and deleted.
type recordingStore struct {
	mu sync.Mutex
	m  map[[2]string]string
}

func newRecordingStore() *recordingStore { return &recordingStore{m: map[[2]string]string{}} }

func (s *recordingStore) Put(_ context.Context, session, name string, v secret.Value) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[[2]string{session, name}] = string(v.Reveal())
	return nil
}

func (s *recordingStore) Delete(_ context.Context, session, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, [2]string{session, name})
	return nil
}

func (s *recordingStore) Get(_ context.Context, session, name string) (secret.Value, error) {
	v, ok := s.get(session, name)
	if !ok {
		return secret.Value{}, secretstore.ErrNotFound
	}
	return secret.FromString(v), nil
}

func (s *recordingStore) DeleteSession(_ context.Context, session string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.m {
		if k[0] == session {
			delete(s.m, k)
		}
	}
	return nil
}

func (s *recordingStore) get(session, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[[2]string{session, name}]
	return v, ok
}

// storedFound turns what a test journal's typed lookup found into what
// store.ResultFinder returns.
func storedFound(r *journal.Record, ok bool, err error) (store.Record, bool, error) {
	if r == nil || !ok || err != nil {
		return store.Record{}, false, err
	}
	sr, err := r.Stored()
	return sr, err == nil, err
}

// envCall is an ask_user call of one choice, "env" (a or b), with a
// 30-second deadline.
const envCall = `{"questions":[{"id":"env","header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}],"timeout_seconds":30}`
