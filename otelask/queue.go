package otelask

import (
	"sync"
	"sync/atomic"
	"time"
)

// queueDelay is how long the Observer's goroutine, woken by a finalized
// ask, waits for more before it makes their spans: long enough that a busy
// service wakes it once for many asks, short beside the batch span
// processor's own wait (5 s by default).
const queueDelay = 10 * time.Millisecond

// A queue holds the finalized asks whose spans wait for the Observer's
// goroutine.
type queue struct {
	mu     sync.Mutex
	buf    []finished // waiting; never grows past its capacity, the queue's size
	closed bool       // Close has begun: spans are made on the ask's goroutine

	quarter int // a quarter of the queue's size (at least 1): when full is signalled

	// rec is held while a batch's spans are made, so that Flush returns
	// only once what was taken before it is made too; spare and sc are
	// the batch's, under rec.
	rec   sync.Mutex
	spare []finished
	sc    *scratch

	wake    chan struct{} // the queue went from empty to not
	full    chan struct{} // the queue reached a quarter of its size
	stop    chan struct{} // Close
	done    chan struct{} // the goroutine has recorded the last asks and returned
	once    sync.Once
	dropped atomic.Int64 // spans not queued, the queue full
}

func newQueue(size int) *queue {
	return &queue{
		buf: make([]finished, 0, size), spare: make([]finished, 0, size), sc: newScratch(), quarter: max(1, size/4),
		wake: make(chan struct{}, 1), full: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// put queues e, or counts it dropped when the queue is full. It reports
// false when the Observer is closed: e is then the caller's to record.
func (q *queue) put(e *finished) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	if len(q.buf) == cap(q.buf) {
		q.mu.Unlock()
		q.dropped.Add(1)
		return true
	}
	q.buf = append(q.buf, *e)
	n := len(q.buf)
	q.mu.Unlock()
	if n == 1 {
		signal(q.wake)
	}
	if n == q.quarter {
		signal(q.full)
	}
	return true
}

// signal wakes c's receiver, or leaves it the token it has not taken yet.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// run is the Observer's goroutine: woken by a first finalized ask, it
// waits queueDelay for more (or until a quarter of the queue is taken)
// and makes all their spans; at Close it makes what is left and returns.
func (t *Observer) run() {
	q := t.q
	defer close(q.done)
	timer := time.NewTimer(queueDelay)
	timer.Stop()
	for {
		select {
		case <-q.wake:
		case <-q.stop:
			t.Flush()
			return
		}
		timer.Reset(queueDelay)
		select {
		case <-timer.C:
		case <-q.full:
			timer.Stop()
		case <-q.stop:
			timer.Stop()
			t.Flush()
			return
		}
		t.Flush()
	}
}

// Flush makes, before it returns, the spans of the asks finalized before
// it was called that wait for the Observer's goroutine (Options.Queue):
// for a test, or before the tracer provider's ForceFlush. Without a queue
// it has nothing to do.
func (t *Observer) Flush() {
	q := t.q
	if q == nil {
		return
	}
	q.rec.Lock()
	defer q.rec.Unlock()
	q.mu.Lock()
	batch := q.buf
	q.buf = q.spare
	q.mu.Unlock()
	for i := range batch {
		t.span(&batch[i], q.sc)
		q.sc.empty()
	}
	clear(batch) // let go of the callers' contexts
	q.spare = batch[:0]
}

// Close makes the spans that wait for the Observer's goroutine and stops
// it (Options.Queue); the span of an ask finalized after it is made on the
// ask's goroutine. Close it before the tracer and meter providers are shut
// down. Without a queue it has nothing to do. It is safe to call more
// than once.
func (t *Observer) Close() {
	q := t.q
	if q == nil {
		return
	}
	q.once.Do(func() {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		close(q.stop)
	})
	<-q.done
}
