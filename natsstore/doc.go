// Package natsstore keeps askuser's shared state in NATS JetStream, so
// that several processes (the replicas of a service, or one process
// restarted) serve the same asks.
//
// Pending asks live in a key-value bucket (<prefix>_pending), one key per
// ask, written with compare-and-set on the key's revision; its entries
// expire Retention after their last write (default
// store.DefaultRetention), and an expiry leaves a marker so that
// watchers see the removal.
//
// Their timers live in a stream (<prefix>_timers) that allows message
// schedules. Schedule publishes a schedule on <prefix>.timers.at.<key>,
// with the headers Nats-Schedule ("@at" and an RFC 3339 time in UTC) and
// Nats-Schedule-Target; the server rolls up the subject, so the newest
// schedule replaces the key's earlier one, and at its time the server
// publishes the key on <prefix>.timers.due.<key> and removes the
// schedule. Every caller of Due, in every process, pulls from one durable
// consumer of those subjects (<prefix>_due), which hands a key to one
// caller at a time, and again Config.TimerAckWait later unless that
// caller acknowledged it or still reports it in hand. The stream is a work queue, so an acknowledged
// key leaves it; a schedule or a due key older than Retention is dropped.
//
// The journal is a stream (<prefix>_journal, on subjects
// <prefix>.journal.<session digest>.<tool-call digest>, so that a tool
// call's record is one request away) whose message id is the ask id: the
// stream's duplicate window, one hour, makes two replicas finalizing one
// ask write one record. It keeps its records for ever, or for
// Config.JournalRetention when a store sets one.
// With Config.Keys every record carries a MAC under a key derived from the
// ring and its place in its writer's chain, and a remembered consent a MAC
// (see Journal and Store.Consents): a record or a consent that does not
// verify is never replayed or applied, and Journal.Verify (`askuser
// journal verify --nats URL`) reports the first bad record.
//
// Secrets live in a key-value bucket (<prefix>_secrets) as records sealed
// with secretstore.Seal under the caller's key ring before they leave the
// process: the key never reaches NATS, and keys are digests of the
// session and name, so neither appears in NATS either. Remembered approval
// decisions live in a key-value bucket (<prefix>_consents).
//
// Everything uses file storage and Config.Replicas replicas unless told
// otherwise. This package is a client only: a NATS server with JetStream
// inside the process, for a single machine and for tests, is package
// [github.com/askuser-go/askuser/natsstore/natsserver].
package natsstore
