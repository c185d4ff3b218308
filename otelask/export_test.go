package otelask

// QueueDelay is how long the Observer's goroutine waits, once woken, before
// it makes the spans queued.
const QueueDelay = queueDelay
