// Package fleettest holds opt-in tests that drive a real askuser fleet:
// three nats-server processes clustered with JetStream and three `askuser
// serve` replicas joined to them, all on loopback, built from this module
// into the test's temporary directory. It has no code of its own besides
// this comment; `go test ./...` skips its tests unless they are asked for.
//
// # The scale test
//
// TestFleetScale measures the fleet with many pending asks: the latency
// from a card's submit to the waiting long poll on an empty fleet and
// again with the asks pending, the rate at which the fleet creates pending
// asks (beside one orchestrator in memory), the memory of the six
// processes, and how long a SIGKILLed replica takes to serve again.
//
//	ASKUSER_SCALE=1 ASKUSER_SCALE_ASKS=20000 ASKUSER_SCALE_OUT=/tmp/scale.json \
//	    go test ./fleettest -run TestFleetScale -v -timeout 60m
//
// ASKUSER_SCALE_ASKS is how many asks are left pending (default 100000);
// ASKUSER_SCALE_OUT, when set, names a file the figures are written to as
// JSON.
//
// # Binaries
//
// Both tests build ./cmd/askuser and github.com/nats-io/nats-server/v2 (from
// the module cache, at the version go.mod requires) unless ASKUSER_BIN or
// NATS_SERVER_BIN name binaries to use instead. Every process's output is
// kept in the test's temporary directory while it runs, and the last lines
// of it are shown when a process fails to start. Every process is killed
// when the test ends.
package fleettest
