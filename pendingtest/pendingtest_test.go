package pendingtest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/pendingtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMemoryPending(t *testing.T) {
	pendingtest.Run(t, func(*testing.T) askuser.PendingStore { return askuser.NewMemoryPending(0) })
}

// ignoresRev updates whatever the revision it is given: the last writer
// wins, which is what the store must prevent.
type ignoresRev struct{ *askuser.MemoryPending }

func (s ignoresRev) Update(ctx context.Context, key string, data []byte, _ uint64) (uint64, error) {
	e, err := s.Get(ctx, key)
	if err != nil {
		return 0, askuser.ErrPendingChanged
	}
	return s.MemoryPending.Update(ctx, key, data, e.Revision)
}

// overwrites creates over a taken key.
type overwrites struct{ *askuser.MemoryPending }

func (s overwrites) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	if e, err := s.Get(ctx, key); err == nil {
		return s.MemoryPending.Update(ctx, key, data, e.Revision)
	}
	return s.MemoryPending.Create(ctx, key, data)
}

// aliases keeps the caller's slice and hands it back from Get.
type aliases struct {
	*askuser.MemoryPending
	mu   sync.Mutex
	data map[string][]byte
}

func (s *aliases) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	rev, err := s.MemoryPending.Create(ctx, key, data)
	if err == nil {
		s.mu.Lock()
		s.data[key] = data
		s.mu.Unlock()
	}
	return rev, err
}

func (s *aliases) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	rev, err := s.MemoryPending.Update(ctx, key, data, rev)
	if err == nil {
		s.mu.Lock()
		s.data[key] = data
		s.mu.Unlock()
	}
	return rev, err
}

func (s *aliases) Get(ctx context.Context, key string) (askuser.PendingEntry, error) {
	e, err := s.MemoryPending.Get(ctx, key)
	if err == nil {
		s.mu.Lock()
		e.Data = s.data[key]
		s.mu.Unlock()
	}
	return e, err
}

// neverCatchesUp does not say when the current entries are all delivered,
// and returns nil, not ctx's error, when ctx ends.
type neverCatchesUp struct{ *askuser.MemoryPending }

func (s neverCatchesUp) Watch(ctx context.Context, f func(askuser.PendingEntry)) error {
	s.MemoryPending.Watch(ctx, func(e askuser.PendingEntry) {
		if e.Key != "" {
			f(e)
		}
	})
	return nil
}

// reorders hands over each change after the caught-up mark only once the
// next one has come, after it.
type reorders struct{ *askuser.MemoryPending }

func (s reorders) Watch(ctx context.Context, f func(askuser.PendingEntry)) error {
	var held *askuser.PendingEntry
	caughtUp := false
	return s.MemoryPending.Watch(ctx, func(e askuser.PendingEntry) {
		switch {
		case !caughtUp:
			f(e)
			caughtUp = e.Key == ""
		case held == nil:
			held = &e
		default:
			f(e)
			f(*held)
			held = nil
		}
	})
}

var broken = map[string]func() askuser.PendingStore{
	"update-ignores-rev": func() askuser.PendingStore { return ignoresRev{askuser.NewMemoryPending(0)} },
	"create-overwrites":  func() askuser.PendingStore { return overwrites{askuser.NewMemoryPending(0)} },
	"aliases": func() askuser.PendingStore {
		return &aliases{MemoryPending: askuser.NewMemoryPending(0), data: map[string][]byte{}}
	},
	"never-catches-up": func() askuser.PendingStore { return neverCatchesUp{askuser.NewMemoryPending(0)} },
	"reorders":         func() askuser.PendingStore { return reorders{askuser.NewMemoryPending(0)} },
}

// TestBrokenStoresFail runs the suite on stores that each break one rule,
// in a child process (Run fails the test it is given), and reads which
// cases failed: the ones whose rule is broken, and not the others.
func TestBrokenStoresFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	for _, tt := range []struct {
		store      string
		fail, pass []string
	}{
		{"update-ignores-rev", []string{"update", "watch"}, []string{"create", "get-missing", "revisions-increase", "not-aliased"}},
		{"create-overwrites", []string{"create"}, []string{"update", "get-missing", "concurrent-updates-one-wins", "not-aliased"}},
		{"aliases", []string{"not-aliased"}, []string{"create", "update", "watch", "concurrent-updates-one-wins"}},
		{"never-catches-up", []string{"watch", "watch-ended-context"}, []string{"create", "update", "not-aliased"}},
		{"reorders", []string{"watch"}, []string{"create", "update", "not-aliased", "watch-ended-context"}},
	} {
		t.Run(tt.store, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperRun$", "-test.v", "-test.timeout=120s")
			cmd.Env = append(os.Environ(), "PENDINGTEST_HELPER="+tt.store)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a broken store; it said:\n%s", out)
			}
			for _, c := range tt.fail {
				if !strings.Contains(string(out), "--- FAIL: TestHelperRun/"+c+" ") {
					t.Errorf("case %s did not fail; the suite said:\n%s", c, out)
				}
			}
			for _, c := range tt.pass {
				if !strings.Contains(string(out), "--- PASS: TestHelperRun/"+c+" ") {
					t.Errorf("case %s did not pass (it tests a rule the store keeps); the suite said:\n%s", c, out)
				}
			}
		})
	}
}

// TestHelperRun is TestBrokenStoresFail's child.
func TestHelperRun(t *testing.T) {
	name := os.Getenv("PENDINGTEST_HELPER")
	if name == "" {
		t.Skip("run by TestBrokenStoresFail")
	}
	open, ok := broken[name]
	if !ok {
		t.Fatalf("no broken store %q", name)
	}
	pendingtest.Run(t, func(*testing.T) askuser.PendingStore { return open() })
}

// TestMemoryRetention: MemoryPending drops an entry Retention after its
// last write, and a watcher is told, with nil Data.
func TestMemoryRetention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const retention = time.Hour
		s := askuser.NewMemoryPending(retention)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		old, _ := s.Create(ctx, "0a", []byte(`old`))
		time.Sleep(retention / 2)
		rev, _ := s.Create(ctx, "0b", []byte(`young`))

		got := make(chan askuser.PendingEntry, 16)
		done := make(chan error, 1)
		go func() { done <- s.Watch(ctx, func(e askuser.PendingEntry) { got <- e }) }()
		synctest.Wait()
		var initial []askuser.PendingEntry
		for len(got) > 0 {
			initial = append(initial, <-got)
		}
		want := []askuser.PendingEntry{{Key: "0a", Data: []byte(`old`), Revision: old}, {Key: "0b", Data: []byte(`young`), Revision: rev}, {}}
		if !slices.EqualFunc(initial, want, sameEntry) {
			t.Fatalf("Watch began with %+v, want %+v", initial, want)
		}

		// Just before its retention ends, 0a is still there.
		time.Sleep(retention/2 - time.Second)
		if _, err := s.Get(ctx, "0a"); err != nil {
			t.Fatalf("Get before retention ran out: %v", err)
		}
		time.Sleep(time.Second)
		if e, err := s.Get(ctx, "0a"); !errors.Is(err, askuser.ErrPendingNotFound) {
			t.Fatalf("Get after retention ran out = %+v, %v; want ErrPendingNotFound", e, err)
		}
		synctest.Wait()
		if len(got) != 1 {
			t.Fatalf("the watcher got %d entries when 0a was dropped; want 1", len(got))
		}
		if e := <-got; e.Key != "0a" || e.Data != nil {
			t.Fatalf("the removal came as %+v; want key 0a with nil Data", e)
		}
		// An update restarts the clock: 0b, rewritten now, outlives its
		// first write's retention.
		if _, err := s.Update(ctx, "0b", []byte(`again`), rev); err != nil {
			t.Fatal(err)
		}
		<-got
		time.Sleep(retention - time.Second)
		if _, err := s.Get(ctx, "0b"); err != nil {
			t.Fatalf("Get of an entry rewritten within its retention: %v", err)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Watch returned %v, want context.Canceled", err)
		}
	})
}

func sameEntry(a, b askuser.PendingEntry) bool {
	return a.Key == b.Key && a.Revision == b.Revision && string(a.Data) == string(b.Data) && (a.Data == nil) == (b.Data == nil)
}
