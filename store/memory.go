package store

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is a Pending store in this process's memory: orchestrators that
// share one share their pending asks and their timers, as replicas sharing
// a NATS store do. The zero Memory is ready to use.
//
// It keeps each entry for Retention after its last write. A watcher of
// Changes queues what it has not yet handled without bound, so that no
// writer ever waits on one. Its timers are in memory too, so they outlive
// an orchestrator but not the process. Due callers take the keys that come
// due in turn, one key per caller at a time; a key is never with two
// callers at once, and an f's context ends only with its Due's.
type Memory struct {
	// Retention is how long an entry is kept after its last write
	// (zero: DefaultRetention).
	Retention time.Duration
	// Redelivery is how long a key waits before it comes again when its
	// f returned an error or its Due's context ended while f ran (zero:
	// one second).
	Redelivery time.Duration

	mu       sync.Mutex
	swept    time.Time // when expireLocked last ran
	rev      uint64
	entries  map[string]memEntry
	watchers []*memWatcher

	timer     *time.Timer // fires at the earliest time in timers
	timers    timerHeap
	scheduled map[string]*timerItem // each key's time from Schedule
	retries   map[string]*timerItem // each key's redelivery after a failed f
	due       map[string]dueState   // keys that came due and are not done
	ready     []string              // the keys in due that wait for a caller, first come first
	waiters   []chan string         // idle Due callers, longest idle first
}

type memEntry struct {
	data    []byte
	rev     uint64
	written time.Time
}

// A dueState is where a key that came due is on its way to an f.
type dueState int

const (
	dueReady     dueState = iota + 1 // in ready, waiting for a caller
	dueHeld                          // an f has it
	dueHeldAgain                     // an f has it, and it came due again meanwhile
)

// A timerItem is a key's time in the heap of timers: one it was scheduled
// for, or one it is redelivered at.
type timerItem struct {
	key   string
	at    time.Time
	retry bool
	index int
}

type timerHeap []*timerItem

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	it := x.(*timerItem)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *timerHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	it.index = -1
	return it
}

// NewMemory returns an empty Memory that keeps entries for retention after
// their last write (zero: DefaultRetention).
func NewMemory(retention time.Duration) *Memory {
	return &Memory{Retention: retention}
}

func (m *Memory) retention() time.Duration {
	if m.Retention > 0 {
		return m.Retention
	}
	return DefaultRetention
}

func (m *Memory) redelivery() time.Duration {
	if m.Redelivery > 0 {
		return m.Redelivery
	}
	return time.Second
}

// expireLocked removes the entries retention has run out on, and tells
// the watchers. It sweeps at most once a second; between sweeps, live
// treats an entry past its retention as gone.
func (m *Memory) expireLocked(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	var gone []string
	for k, e := range m.entries {
		if now.Sub(e.written) >= m.retention() {
			gone = append(gone, k)
		}
	}
	// Removals are changes too, in the order the entries were written.
	slices.SortFunc(gone, func(a, b string) int { return cmp.Compare(m.entries[a].rev, m.entries[b].rev) })
	for _, k := range gone {
		delete(m.entries, k)
		m.rev++
		m.publishLocked(Entry{Key: k, Revision: m.rev})
	}
}

// live returns the entry under key unless there is none or its retention
// has run out.
func (m *Memory) live(key string, now time.Time) (memEntry, bool) {
	e, ok := m.entries[key]
	if !ok || now.Sub(e.written) >= m.retention() {
		return memEntry{}, false
	}
	return e, true
}

func (m *Memory) putLocked(key string, data []byte, now time.Time) uint64 {
	if m.entries == nil {
		m.entries = map[string]memEntry{}
	}
	m.rev++
	data = slices.Clone(data)
	if data == nil {
		data = []byte{} // nil Data means removed
	}
	m.entries[key] = memEntry{data: data, rev: m.rev, written: now}
	m.publishLocked(Entry{Key: key, Data: data, Revision: m.rev})
	return m.rev
}

// Create implements Pending.
func (m *Memory) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if _, ok := m.live(key, now); ok {
		return 0, ErrExists
	}
	return m.putLocked(key, data, now), nil
}

// Get implements Pending.
func (m *Memory) Get(ctx context.Context, key string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	e, ok := m.live(key, now)
	if !ok {
		return Entry{}, ErrNotFound
	}
	return Entry{Key: key, Data: slices.Clone(e.data), Revision: e.rev}, nil
}

// Update implements Pending.
func (m *Memory) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if e, ok := m.live(key, now); !ok || e.rev != rev {
		return 0, ErrChanged
	}
	return m.putLocked(key, data, now), nil
}

// List implements Pending.
func (m *Memory) List(ctx context.Context, prefix string) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	var out []Entry
	for k := range m.entries {
		if e, ok := m.live(k, now); ok && strings.HasPrefix(k, prefix) {
			out = append(out, Entry{Key: k, Data: slices.Clone(e.data), Revision: e.rev})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, nil
}

// A memWatcher is one Changes call's queue: writers append to it and
// signal, and never wait.
type memWatcher struct {
	queue  []Entry
	signal chan struct{} // holds a token while queue is not empty
}

func (m *Memory) publishLocked(e Entry) {
	for _, w := range m.watchers {
		w.queue = append(w.queue, Entry{Key: e.Key, Data: slices.Clone(e.Data), Revision: e.Revision})
		select {
		case w.signal <- struct{}{}:
		default:
		}
	}
}

// Changes implements Pending. Changes are queued without bound for a slow
// f, so that no writer ever waits on a watcher.
func (m *Memory) Changes(ctx context.Context, f func(Entry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := &memWatcher{signal: make(chan struct{}, 1)}
	m.mu.Lock()
	m.watchers = append(m.watchers, w)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.watchers = slices.DeleteFunc(m.watchers, func(o *memWatcher) bool { return o == w })
		m.mu.Unlock()
	}()

	f(Entry{})
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.signal:
		}
		m.mu.Lock()
		batch := w.queue
		w.queue = nil
		m.mu.Unlock()
		for _, e := range batch {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			f(e)
		}
	}
}

// Schedule implements Pending.
func (m *Memory) Schedule(ctx context.Context, key string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scheduleLocked(key, at)
	return nil
}

func (m *Memory) scheduleLocked(key string, at time.Time) {
	if m.scheduled == nil {
		m.scheduled = map[string]*timerItem{}
	}
	if it, ok := m.scheduled[key]; ok {
		it.at = at
		heap.Fix(&m.timers, it.index)
	} else {
		it := &timerItem{key: key, at: at}
		heap.Push(&m.timers, it)
		m.scheduled[key] = it
	}
	m.advanceLocked(time.Now())
}

// ScheduleNew sets key's timer as Schedule does, but only when the key has
// no time scheduled (none set, or the last one came due): otherwise it
// changes nothing and returns an error wrapping ErrExists. The
// orchestrator sets a new ask's first timer with it, so that a retried
// tool call never moves the timer of the ask that holds its key.
func (m *Memory) ScheduleNew(ctx context.Context, key string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.scheduled[key]; ok {
		return fmt.Errorf("store: scheduling %s: it has a time scheduled: %w", key, ErrExists)
	}
	m.scheduleLocked(key, at)
	return nil
}

// advanceLocked makes every key whose time has come due, hands due keys
// to idle callers, and sets the timer for the next time.
func (m *Memory) advanceLocked(now time.Time) {
	for len(m.timers) > 0 && !m.timers[0].at.After(now) {
		it := heap.Pop(&m.timers).(*timerItem)
		if it.retry {
			delete(m.retries, it.key)
		} else {
			delete(m.scheduled, it.key)
		}
		m.comeDueLocked(it.key)
	}
	m.dispatchLocked()
	if len(m.timers) == 0 {
		if m.timer != nil {
			m.timer.Stop()
		}
		return
	}
	d := m.timers[0].at.Sub(now)
	if m.timer == nil {
		m.timer = time.AfterFunc(d, m.fire)
	} else {
		m.timer.Reset(d)
	}
}

func (m *Memory) fire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advanceLocked(time.Now())
}

// comeDueLocked puts key on its way to a caller. A key already waiting
// for one is not queued twice, and a redelivery it waited for is no longer
// needed; a key an f holds comes again once f is done.
func (m *Memory) comeDueLocked(key string) {
	if m.due == nil {
		m.due = map[string]dueState{}
	}
	switch m.due[key] {
	case dueReady, dueHeldAgain:
	case dueHeld:
		m.due[key] = dueHeldAgain
	default:
		if it, ok := m.retries[key]; ok {
			heap.Remove(&m.timers, it.index)
			delete(m.retries, key)
		}
		m.due[key] = dueReady
		m.ready = append(m.ready, key)
	}
}

// dispatchLocked hands ready keys to idle callers, in the order each came.
func (m *Memory) dispatchLocked() {
	for len(m.ready) > 0 && len(m.waiters) > 0 {
		key, w := m.ready[0], m.waiters[0]
		m.ready, m.waiters = m.ready[1:], m.waiters[1:]
		m.due[key] = dueHeld
		w <- key // buffered, and empty while the caller waits
	}
}

// doneLocked records that an f has finished with key: acked, or to come
// again after Redelivery.
func (m *Memory) doneLocked(key string, acked bool, now time.Time) {
	again := m.due[key] == dueHeldAgain
	delete(m.due, key)
	switch {
	case again:
		m.comeDueLocked(key)
	case !acked:
		if m.retries == nil {
			m.retries = map[string]*timerItem{}
		}
		it := &timerItem{key: key, at: now.Add(m.redelivery()), retry: true}
		heap.Push(&m.timers, it)
		m.retries[key] = it
	}
	m.advanceLocked(now)
}

// Due implements Pending. The callers of one Memory take the keys that
// come due in turn; f's context is Due's.
func (m *Memory) Due(ctx context.Context, f func(ctx context.Context, key string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	next := make(chan string, 1)
	for {
		m.mu.Lock()
		m.waiters = append(m.waiters, next)
		m.dispatchLocked()
		m.mu.Unlock()
		select {
		case key := <-next:
			err := f(ctx, key)
			m.mu.Lock()
			m.doneLocked(key, err == nil && ctx.Err() == nil, time.Now())
			m.mu.Unlock()
		case <-ctx.Done():
			m.mu.Lock()
			m.waiters = slices.DeleteFunc(m.waiters, func(c chan string) bool { return c == next })
			select {
			case key := <-next:
				// Handed over as ctx ended: it goes back to the head of
				// the queue, for the next caller.
				m.due[key] = dueReady
				m.ready = slices.Insert(m.ready, 0, key)
				m.dispatchLocked()
			default:
			}
			m.mu.Unlock()
			return ctx.Err()
		}
	}
}
