package askuser

import (
	"container/heap"
	"sync"
	"time"
)

// deadlines ends the pending asks of an EventDriven responder at their
// deadlines, with one timer for them all: a pending ask holds a place in a
// heap rather than a timer of its own. The timer is set for the earliest
// deadline; when it fires, every ask whose deadline has come is ended, one
// after another, and the timer is set for the next.
type deadlines struct {
	mu    sync.Mutex
	h     deadlineHeap
	timer *time.Timer // made at the first add
}

// add puts a in the heap, and sets the timer sooner when a's deadline is
// the earliest.
func (d *deadlines) add(a *Ask) {
	d.mu.Lock()
	defer d.mu.Unlock()
	heap.Push(&d.h, a)
	if a.deadlineAt == 1 { // the earliest
		d.setLocked()
	}
}

// remove takes a out of the heap, if it is there, so that an ask that
// ended before its deadline is not kept until then.
func (d *deadlines) remove(a *Ask) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.deadlineAt > 0 {
		heap.Remove(&d.h, a.deadlineAt-1)
	}
	if len(d.h) == 0 && d.timer != nil {
		d.timer.Stop()
	}
}

// setLocked sets the timer for the earliest deadline in the heap (a timer
// that fires with nothing due sets itself again).
func (d *deadlines) setLocked() {
	if len(d.h) == 0 {
		return
	}
	wait := time.Until(d.h[0].form.ExpiresAt)
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, d.fire)
		return
	}
	d.timer.Reset(wait)
}

// fire ends every ask whose deadline has come, and sets the timer for the
// next.
func (d *deadlines) fire() {
	d.mu.Lock()
	var due []*Ask
	now := time.Now()
	for len(d.h) > 0 && !now.Before(d.h[0].form.ExpiresAt) {
		due = append(due, heap.Pop(&d.h).(*Ask))
	}
	d.setLocked()
	d.mu.Unlock()
	for _, a := range due {
		a.tryEnd(&ending{reason: ReasonDeadline})
	}
}

// deadlineHeap orders asks by deadline; each ask's deadlineAt is its place
// in it, plus one (0: not in it).
type deadlineHeap []*Ask

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].form.ExpiresAt.Before(h[j].form.ExpiresAt) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].deadlineAt, h[j].deadlineAt = i+1, j+1
}

func (h *deadlineHeap) Push(x any) {
	a := x.(*Ask)
	a.deadlineAt = len(*h) + 1
	*h = append(*h, a)
}

func (h *deadlineHeap) Pop() any {
	old := *h
	a := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	a.deadlineAt = 0
	return a
}
