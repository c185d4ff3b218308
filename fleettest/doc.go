// Package fleettest holds opt-in tests that drive a real askuser fleet:
// three nats-server processes clustered with JetStream and three `askuser
// serve` replicas joined to them, all on loopback, built from this module
// into the test's temporary directory. It has no code of its own besides
// this comment; `go test ./...` skips the scale and chaos tests unless
// they are asked for.
//
// # Votes
//
// TestFleetVotes runs in the normal test run (a few seconds; -short skips
// it): two orchestrators, each with its own connection to one JetStream
// server started in the test process on loopback, decide approvals by a
// quorum of 2 — one approval on each replica approves, a deny on either
// denies, a partial quorum at the deadline is unresolved with every vote
// listed (the requester's own, not counted) — and each journal record's
// verdict follows from its votes.
//
// # The scale test
//
// TestFleetScale measures the fleet with many pending asks: the latency
// from a card's submit to the waiting long poll on an empty fleet and
// again with the asks pending, the rate at which the fleet creates pending
// asks (beside one orchestrator in memory) and the CPU time the six
// processes spend per ask created (a figure that does not depend on how
// many CPUs the machine has), the memory of the six processes, and how
// long a SIGKILLed replica takes to serve again. Each latency is timed
// over 1,000 answers, one after another, so that its 99th percentile is
// the tenth slowest rather than one stall.
//
//	ASKUSER_SCALE=1 ASKUSER_SCALE_ASKS=20000 ASKUSER_SCALE_OUT=/tmp/scale.json \
//	    go test ./fleettest -run TestFleetScale -v -timeout 60m
//
// ASKUSER_SCALE_ASKS is how many asks are left pending (default 100000);
// ASKUSER_SCALE_OUT, when set, names a file the figures are written to as
// JSON.
//
// # The chaos test
//
// TestFleetChaos keeps about a hundred calls in flight, each with its own
// fate (answered on a random replica's card, left to its deadline, or
// superseded), while it SIGKILLs a random NATS node or a random replica
// (by turns) every 10 to 30 seconds and starts it again 2 to 5 seconds
// later. It then checks that
// no answer was lost, no call was asked twice, every call has an outcome and
// the journal holds one record per finalized ask, and reports how late the
// deadlines were kept.
//
//	ASKUSER_CHAOS=1 ASKUSER_CHAOS_DURATION=2m ASKUSER_CHAOS_OUT=/tmp/chaos.json \
//	    go test ./fleettest -run TestFleetChaos -v -timeout 30m
//
// ASKUSER_CHAOS_DURATION is how long the chaos lasts (default 3m);
// ASKUSER_CHAOS_STRICT=1 also fails the test when a deadline is kept more
// than a second late at the 99th percentile, or more than five at most.
//
// # Binaries
//
// Both tests build ./cmd/askuser and github.com/nats-io/nats-server/v2 (from
// the module cache, at the version go.mod requires) unless ASKUSER_BIN or
// NATS_SERVER_BIN name binaries to use instead. Every process's output is
// kept in the test's temporary directory while it runs, and the last lines
// of it are shown when a process fails to start; ASKUSER_FLEET_LOGS, when
// set, names a directory the output files are copied to when the test
// ends (one file per process and run: serve-0.1.log, nats-2.3.log). Every
// process is killed when the test ends.
package fleettest
