package testport

import (
	"net"
	"strconv"
	"testing"
)

func TestFree(t *testing.T) {
	seen := map[int]bool{}
	for range 20 {
		p := Free(t)
		if p < lowest || p >= ephemeralLow() {
			t.Fatalf("Free() = %d; want a port in [%d, %d)", p, lowest, ephemeralLow())
		}
		if seen[p] {
			t.Fatalf("Free() returned %d twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("listening on the port Free returned: %v", err)
		}
		l.Close()
	}
}
