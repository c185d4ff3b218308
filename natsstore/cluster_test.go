package natsstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/internal/testport"
	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// readyWait bounds every wait for a server or a cluster to be ready.
const readyWait = 30 * time.Second

// A cluster is a JetStream cluster of embedded servers on loopback, each
// with its files in a directory of the test's, for tests that kill and
// restart its nodes. Its nodes are shut down when the test ends.
type cluster struct {
	cfgs  []natsserver.Config
	nodes []*natsserver.Server // nil while a node is down
}

// newCluster starts n servers routed to one another and waits until
// JetStream has a meta leader and every server is current.
func newCluster(t testing.TB, n int) *cluster {
	t.Helper()
	c := &cluster{cfgs: make([]natsserver.Config, n), nodes: make([]*natsserver.Server, n)}
	// The route ports must be known before any server starts, since
	// every server names the others, and a restarted node takes its
	// client port again: both come from below the ephemeral range, where
	// no outgoing connection can take them while a node is down.
	ports := make([]int, n)
	for i := range ports {
		ports[i] = testport.Free(t)
	}
	for i := range c.cfgs {
		c.cfgs[i] = natsserver.Config{
			StoreDir:    t.TempDir(),
			ServerName:  fmt.Sprintf("n%d", i),
			Port:        testport.Free(t),
			ClusterName: "askuser-test",
			ClusterPort: ports[i],
		}
		for j, p := range ports {
			if j != i {
				c.cfgs[i].Routes = append(c.cfgs[i].Routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
	}
	t.Cleanup(func() {
		for i := range c.nodes {
			c.kill(i)
		}
	})
	for i := range c.nodes {
		c.start(t, i)
	}
	c.waitReady(t)
	return c
}

func (c *cluster) start(t testing.TB, i int) {
	t.Helper()
	e, err := natsserver.Start(c.cfgs[i])
	if err != nil {
		t.Fatalf("starting node %d: %v", i, err)
	}
	c.nodes[i] = e
}

// waitReady waits until the running servers agree on a JetStream meta
// leader and are current with it and with every stream they keep: until
// then, a request about a stream whose leader is not yet elected gets no
// answer and waits out its context.
func (c *cluster) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(readyWait)
	for {
		leader, current := false, true
		for _, e := range c.nodes {
			if e == nil {
				continue
			}
			s := e.Server()
			leader = leader || s.JetStreamIsLeader()
			// Healthz is ok once the server is current with the meta
			// leader and with every stream and consumer it keeps.
			current = current && s.JetStreamIsCurrent() && s.Healthz(nil).Status == "ok"
		}
		if leader && current && c.answers() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster had no JetStream meta leader after %v", readyWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answers reports whether every running node answers, promptly, a
// request about every stream: just after a restart, healthy servers still
// drop the first requests for a moment (the routes are still exchanging
// interest), and such a request waits out its whole context.
func (c *cluster) answers() bool {
	for _, e := range c.nodes {
		if e == nil {
			continue
		}
		if !answers(e) {
			return false
		}
	}
	return true
}

func answers(e *natsserver.Server) bool {
	nc, err := e.Connect()
	if err != nil {
		return false
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	names := js.StreamNames(ctx)
	var streams []string
	for n := range names.Name() {
		streams = append(streams, n)
	}
	if names.Err() != nil {
		return false
	}
	for _, n := range streams {
		if _, err := js.Stream(ctx, n); err != nil {
			return false
		}
	}
	return true
}

// connect returns a JetStream context on a new connection to node i; the
// connection is closed when the test ends. A client that loses its node
// reconnects to another (servers tell clients of each other).
func (c *cluster) connect(t testing.TB, i int) jetstream.JetStream {
	t.Helper()
	if c.nodes[i] == nil {
		t.Fatalf("connecting to node %d, which is down", i)
	}
	return jsOn(t, c.nodes[i], nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
}

// kill shuts node i down, if it is up, and waits until it has stopped.
func (c *cluster) kill(i int) {
	if e := c.nodes[i]; e != nil {
		e.Shutdown()
		c.nodes[i] = nil
	}
}

// restart starts node i again from its files, on the same ports, and
// waits until the cluster is ready.
func (c *cluster) restart(t testing.TB, i int) {
	t.Helper()
	c.kill(i)
	c.start(t, i)
	c.waitReady(t)
}

// restartAll stops every node, then starts them all again from their
// files.
func (c *cluster) restartAll(t testing.TB) {
	t.Helper()
	for i := range c.nodes {
		c.kill(i)
	}
	for i := range c.nodes {
		c.start(t, i)
	}
	c.waitReady(t)
}
