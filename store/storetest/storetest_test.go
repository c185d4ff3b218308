package storetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/store"
	"github.com/askuser-go/askuser/store/storetest"
)

func TestMain(m *testing.M) {
	if os.Getenv("STORETEST_HELPER") != "" {
		// A broken store may leave goroutines behind; the child is read
		// for which cases failed, not for leaks.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}

// ignoresRev updates whatever the revision it is given: the last writer
// wins, which is what the store must prevent.
type ignoresRev struct{ *store.Memory }

func (s ignoresRev) Update(ctx context.Context, key string, data []byte, _ uint64) (uint64, error) {
	e, err := s.Get(ctx, key)
	if err != nil {
		return 0, store.ErrChanged
	}
	return s.Memory.Update(ctx, key, data, e.Revision)
}

// overwrites creates over a taken key.
type overwrites struct{ *store.Memory }

func (s overwrites) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	if e, err := s.Get(ctx, key); err == nil {
		return s.Memory.Update(ctx, key, data, e.Revision)
	}
	return s.Memory.Create(ctx, key, data)
}

// aliases keeps the caller's slice and hands it back from Get.
type aliases struct {
	*store.Memory
	mu   sync.Mutex
	data map[string][]byte
}

func (s *aliases) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	rev, err := s.Memory.Create(ctx, key, data)
	if err == nil {
		s.mu.Lock()
		s.data[key] = data
		s.mu.Unlock()
	}
	return rev, err
}

func (s *aliases) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	rev, err := s.Memory.Update(ctx, key, data, rev)
	if err == nil {
		s.mu.Lock()
		s.data[key] = data
		s.mu.Unlock()
	}
	return rev, err
}

func (s *aliases) Get(ctx context.Context, key string) (store.Entry, error) {
	e, err := s.Memory.Get(ctx, key)
	if err == nil {
		s.mu.Lock()
		e.Data = s.data[key]
		s.mu.Unlock()
	}
	return e, err
}

// listsAll ignores the prefix it is given.
type listsAll struct{ *store.Memory }

func (s listsAll) List(ctx context.Context, _ string) ([]store.Entry, error) {
	return s.Memory.List(ctx, "")
}

// replays hands over every entry there is before the mark, as a watch
// of the whole store would: the feed must start from now.
type replays struct{ *store.Memory }

func (s replays) Changes(ctx context.Context, f func(store.Entry)) error {
	all, err := s.Memory.List(ctx, "")
	if err != nil {
		return err
	}
	for _, e := range all {
		f(e)
	}
	return s.Memory.Changes(ctx, f)
}

// drops passes over every second change, whether or not a newer one
// replaced it.
type drops struct{ *store.Memory }

func (s drops) Changes(ctx context.Context, f func(store.Entry)) error {
	n := 0
	return s.Memory.Changes(ctx, func(e store.Entry) {
		if e.Key != "" {
			n++
			if n%2 == 0 {
				return
			}
		}
		f(e)
	})
}

// reorders hands over each change after the mark only once the next one
// has come, after it.
type reorders struct{ *store.Memory }

func (s reorders) Changes(ctx context.Context, f func(store.Entry)) error {
	var held *store.Entry
	return s.Memory.Changes(ctx, func(e store.Entry) {
		switch {
		case e.Key == "":
			f(e)
		case held == nil:
			held = &e
		default:
			f(e)
			f(*held)
			held = nil
		}
	})
}

// early fires every timer as soon as it is set.
type early struct{ *store.Memory }

func (s early) Schedule(ctx context.Context, key string, _ time.Time) error {
	return s.Memory.Schedule(ctx, key, time.Now())
}

// forgets acks a key whatever its f returned.
type forgets struct{ *store.Memory }

func (s forgets) Due(ctx context.Context, f func(context.Context, string) error) error {
	return s.Memory.Due(ctx, func(ctx context.Context, key string) error {
		f(ctx, key)
		return nil
	})
}

// doubles hands each key to two fs at once.
type doubles struct{ *store.Memory }

func (s doubles) Due(ctx context.Context, f func(context.Context, string) error) error {
	return s.Memory.Due(ctx, func(ctx context.Context, key string) error {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { errs[i] = f(ctx, key) })
		}
		wg.Wait()
		return errors.Join(errs...)
	})
}

var broken = map[string]func() store.Pending{
	"update-ignores-rev": func() store.Pending { return ignoresRev{store.NewMemory(0)} },
	"create-overwrites":  func() store.Pending { return overwrites{store.NewMemory(0)} },
	"aliases": func() store.Pending {
		return &aliases{Memory: store.NewMemory(0), data: map[string][]byte{}}
	},
	"list-ignores-prefix": func() store.Pending { return listsAll{store.NewMemory(0)} },
	"changes-replays":     func() store.Pending { return replays{store.NewMemory(0)} },
	"changes-drops":       func() store.Pending { return drops{store.NewMemory(0)} },
	"changes-reorders":    func() store.Pending { return reorders{store.NewMemory(0)} },
	"due-early":           func() store.Pending { return early{store.NewMemory(0)} },
	"due-forgets-failed":  func() store.Pending { return forgets{store.NewMemory(0)} },
	"due-doubles":         func() store.Pending { return doubles{store.NewMemory(0)} },
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
		{"update-ignores-rev", []string{"update", "changes"}, []string{"create", "get-missing", "revisions-increase", "not-aliased", "due-at-time"}},
		{"create-overwrites", []string{"create"}, []string{"update", "get-missing", "concurrent-updates-one-wins", "not-aliased", "list"}},
		{"aliases", []string{"not-aliased"}, []string{"create", "update", "changes", "concurrent-updates-one-wins", "list"}},
		{"list-ignores-prefix", []string{"list"}, []string{"create", "update", "changes"}},
		{"changes-replays", []string{"changes"}, []string{"create", "update", "list", "changes-ended-context"}},
		{"changes-drops", []string{"changes"}, []string{"create", "update", "list", "changes-ended-context"}},
		{"changes-reorders", []string{"changes"}, []string{"create", "update", "not-aliased", "changes-ended-context"}},
		{"due-early", []string{"due-at-time", "schedule-replaces"}, []string{"create", "changes", "due-retries-failed", "due-ended-mid-f", "due-ended-context"}},
		{"due-forgets-failed", []string{"due-retries-failed", "due-one-at-a-time"}, []string{"create", "changes", "due-at-time", "schedule-replaces", "due-ended-mid-f"}},
		{"due-doubles", []string{"due-one-at-a-time"}, []string{"create", "changes", "due-ended-context"}},
	} {
		t.Run(tt.store, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperRun$", "-test.v", "-test.timeout=180s")
			cmd.Env = append(os.Environ(), "STORETEST_HELPER="+tt.store)
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
	name := os.Getenv("STORETEST_HELPER")
	if name == "" {
		t.Skip("run by TestBrokenStoresFail")
	}
	open, ok := broken[name]
	if !ok {
		t.Fatalf("no broken store %q", name)
	}
	storetest.Run(t, func(*testing.T) store.Pending { return open() })
}
