// Package journal keeps askuser's decision journal in a file: one JSON line
// per finalized ask (an askuser.Record: the questions, how the ask ended,
// every answer with who decided it, and the result the model was given),
// written durably with group commit. A *File is an askuser.Journal and an askuser.ResultFinder, so an
// Orchestrator that uses one records every ask and replays a finalized tool
// call across restarts:
//
//	j, err := journal.Open("decisions.jsonl", nil)
//	if err != nil { ... }
//	defer j.Close()
//	o := &askuser.Orchestrator{Responder: r, Journal: j}
//
// # Format
//
// Each record is one JSON object (askuser.Record, format version
// askuser.RecordVersion) followed by '\n'. Records hold no secret value:
// sealed answers appear only as "session:<name>" references.
//
// # Durability
//
// Append returns nil only once its record has been written and fsynced:
// a record reported written survives a crash of the process or the
// machine. Concurrent Appends are batched by one writer goroutine, so they
// share one write and one fsync (group commit); an Append waits at most
// Options.MaxWait (and no longer than its context), and a write that fails
// or comes late is returned and logged, never dropped in silence.
//
// A crash can leave a torn last line: a prefix of a record that was never
// acknowledged. Readers skip it. Open ends such a file with '\n' before
// appending, so a new record never shares a line with a torn one; the torn
// bytes stay in the file, and a later Read reports them as a *LineError
// with Torn set.
//
// One File should write a given path at a time. Several processes
// appending to one file (several `askuser ask --journal FILE`) do not
// corrupt it — every batch is one O_APPEND write — but each keeps its own
// index for FindResult.
//
// # Rotation
//
// With Options.RotateBytes set, a batch that would take the file past that
// size first renames it to PATH.<UTC time>, as in
// decisions.jsonl.20260102T150405.000000000Z (the names sort in time
// order), and starts a new file. Nothing is deleted: pruning old files is
// left to the operator.
//
// An outside tool may rename the file too (logrotate in its default create
// mode, not copytruncate): before each batch the writer compares the path
// with the file it holds (os.SameFile) and, when they differ, opens the
// path again. Every record written before the rename is already durable in
// the renamed file, so nothing is lost.
//
// # Reading
//
// Read and ReadFile iterate over the records of a journal, skip a torn last
// line, and report each malformed line as a *LineError (its line number
// and why) without stopping. The command `askuser journal FILE` lists them.
//
// # Several writers
//
// A torn line can also come from another process appending to the same
// file and killed in the middle of a record, while this one keeps running.
// Before each batch a File makes sure the file ends with '\n' (it reads the
// last byte only when the file's size is not the one it left it at), so a
// new record never shares a line with what the other process left. The check
// and the write that follows hold an advisory lock on the file (flock, on
// the systems that have it) that every File takes for them, so that no other
// writer's torn record can come in between.
package journal
