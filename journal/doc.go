// Package journal keeps askuser's decision journal in a file: one JSON line
// per finalized ask (a Record: the questions, how the ask ended, every
// answer with who decided it, and the result the model was given), written
// durably with group commit. A *File is a store.Journal and a
// store.ResultFinder, so an Orchestrator that uses one records every ask
// and replays a finalized tool call across restarts:
//
//	j, err := journal.Open("decisions.jsonl", &journal.Options{Keys: ring})
//	if err != nil { ... }
//	defer j.Close()
//	o := &askuser.Orchestrator{Responder: r, Journal: j}
//
// # Format
//
// Each record is one JSON object (Record, format version RecordVersion)
// followed by '\n'. Records hold no secret value: sealed answers appear
// only as "session:<name>" references. Decode reads one record, Read and
// ReadFile a whole journal; the same records are what natsstore's journal
// keeps, one message each.
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
// # Authentication
//
// With Options.Keys (a secretstore.KeyRing) the journal is tamper-evident.
// Every record is written with an "auth" member, last on its line:
//
//	{…,"auth":{"key":"k2","seq":42,"prev":"…","mac":"…"}}
//
// mac is an HMAC-SHA-256 of the line without its "auth" member, of seq and
// of prev, under a key derived from the ring's key named by key
// (KeyRing.DeriveWith, with a label of the journal's own). seq is the
// record's place in the file and prev the MAC of the record before it:
// the records of a file form one chain, whichever process wrote them
// (each writer follows what the others appended, under the file's lock,
// before it seals), and the chain runs on across the files rotated by
// size (the first record of a new file carries the last MAC of the old).
// So someone who can write the file but holds no key cannot add a record,
// change one, move one or remove one from the start or the middle
// without VerifyFile (and `askuser journal verify FILE`) reporting the
// first record that does not verify, and why.
//
// What it does not find: records removed from the end of the journal
// (what is left is a whole, shorter chain; VerifyFile reports the head —
// the last sequence number and MAC — to note elsewhere, and a running
// writer that finds its file shorter than it left it logs an error); a
// whole journal replaced by an older copy of itself; anything done by a
// holder of the key. Several writers of one file on a system without flock,
// or writers rotating one file by size while others append to it, may
// leave a chain that reads as broken.
//
// A record that does not verify is never replayed: Open logs it (its file,
// line and why) and leaves it out of FindResult's index, so its tool call
// is asked again. Neither is an authentic record that is out of its place
// (a genuine record copied from another journal, or the one after a
// removed record).
//
// Rotating the key ring: put the new key first and keep the old ones after
// it. New records are made with the new key; the old ones name theirs and
// still verify, and replay, while it stays in the ring.
//
// Without a key ring (Options.Keys nil, the zero Options) records are
// written without "auth" and every record is replayed, as before keys
// existed: such a journal is not tamper-evident, and VerifyFile reports
// each of its records as not authenticated. A File given a key ring never
// replays a record without a MAC (it logs how many there are), so giving a
// key ring to an existing journal asks again, loudly, the tool calls
// recorded before it; the new records after them verify. The command
// askuser always gives one (--key-file, $ASKUSER_SECRET_KEY, else the
// default key file in its state directory, made on first use).
//
// A Consents file opened with ConsentsOptions.Keys is authenticated and
// chained the same way (under a key of its own label): a line appended by
// hand, or a genuine "remember" copied after its "revoke", is logged and
// not applied, and the person is asked. Removing the last lines (a
// "revoke") is not found, as for the journal; a running Consents that
// finds its file shorter logs an error and keeps what it had read.
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
