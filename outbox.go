package askuser

import (
	"context"
	"sync"
	"time"
)

// outbox keeps the journal records of asks finalized in this process's
// memory that the journal refused, and writes them again, oldest first,
// until the journal takes them: a journal that is down delays records and
// loses none while the process lives. (With a shared store, the final
// record in the store is the outbox, and survives the process.)
type outbox struct {
	mu      sync.Mutex
	queue   []outboxItem
	running bool
	stop    chan struct{} // closed by close
	done    chan struct{} // closed when the loop has returned
}

type outboxItem struct {
	ctx context.Context
	rec *record
}

// outboxBackoff bounds the wait between tries: from the first to the last.
var outboxBackoff = [2]time.Duration{100 * time.Millisecond, 30 * time.Second}

func (b *outbox) add(o *Orchestrator, ctx context.Context, rec *record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stop == nil {
		b.stop = make(chan struct{})
	}
	b.queue = append(b.queue, outboxItem{context.WithoutCancel(ctx), rec})
	if b.running || isClosed(b.stop) {
		return
	}
	b.running = true
	b.done = make(chan struct{})
	go b.loop(o, b.done)
}

// loop writes the queue's records until it is empty or close is called.
func (b *outbox) loop(o *Orchestrator, done chan struct{}) {
	defer close(done)
	wait := outboxBackoff[0]
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-b.stop:
			return
		}
		b.mu.Lock()
		next := b.queue[0]
		b.mu.Unlock()
		if err := o.journalTry(next.ctx, next.rec, true); err != nil {
			wait = min(2*wait, outboxBackoff[1])
			o.logger().Error("askuser: the journal still refuses a record; trying again", "ask", next.rec.AskID, "waiting", len(b.queue), "retry_in", wait, "err", err)
			t.Reset(wait)
			continue
		}
		wait = outboxBackoff[0]
		b.mu.Lock()
		b.queue = b.queue[1:]
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		t.Reset(0)
	}
}

// close stops the loop; the records it still holds are logged as lost.
func (b *outbox) close(o *Orchestrator) {
	b.mu.Lock()
	if b.stop == nil {
		b.stop = make(chan struct{})
	}
	if !isClosed(b.stop) {
		close(b.stop)
	}
	done := b.done
	b.mu.Unlock()
	if done != nil {
		<-done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, it := range b.queue {
		o.logger().Error("askuser: a journal record was never written: the journal refused it until the orchestrator closed", "ask", it.rec.AskID, "session", it.rec.Session, "tool_call", it.rec.ToolCallID)
	}
	b.queue = nil
}
