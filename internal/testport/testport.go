// Package testport gives tests loopback ports they must know before
// anything listens on them: a route every server of a cluster names, or a
// port a restarted process must take again.
//
// A port taken from a listener on port 0 is in the kernel's ephemeral
// range, which is also where every outgoing connection gets its local
// port; between the moment the test lets go of it and the moment its
// server binds it, a connection elsewhere on the machine (another test
// package, running in parallel) can take it. Ports below that range are
// never handed out that way, so Free picks one there.
package testport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowest is the smallest port Free picks.
const lowest = 20000

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Free returns a loopback TCP port below the ephemeral range that was free
// a moment ago and that Free has not returned before in this process.
func Free(t testing.TB) int {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	hi := ephemeralLow()
	for range 200 {
		p := lowest + rand.IntN(hi-lowest)
		if given[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		given[p] = true
		return p
	}
	t.Fatalf("testport: no free loopback port in [%d, %d) after 200 tries", lowest, hi)
	return 0
}

// ephemeralLow is the first port of the kernel's ephemeral range, or
// Linux's default, 32768, when it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= lowest+1000 {
		return 32768
	}
	return n
}
