// Package secretstore keeps the secrets a person typed, sealed, under the
// session that asked for them, until a tool resolves a "session:<name>"
// reference to use one. Every record is sealed with NaCl secretbox
// (XSalsa20-Poly1305) under a fresh random nonce and a per-record subkey
// derived with HKDF-SHA-256 from a key in a [KeyRing]; the subkey binds the
// record's session, name, format version and key id, so a record copied to
// another session or name, altered, truncated or sealed under a key the ring
// no longer holds fails to open with the one error [ErrOpen]. Keys carry ids
// and rotate: [Seal] uses the ring's first key and [Open] any key in it. Two
// stores implement [Store]: [Memory], for the life of a process, and [Dir],
// a directory of files that survives restarts and is safe to share between
// goroutines and processes. Secret content never appears in an error,
// a log line or a fmt rendering of any type in this package.
//
// Both are also a [Stager], which keeps a value aside until it is committed
// as the record under its name, or discarded. The askuser orchestrator
// relies on it for the rule its references follow: a record is replaced only
// by an ask whose final result hands the reference out, and never deleted
// while a finalized result still refers to it. So when a later ask in the
// same session collects a value under the same name and is then declined,
// expires or fails, the earlier result's "session:<name>" still resolves to
// the earlier value. [Staging] gives any Store the same behaviour.
package secretstore
