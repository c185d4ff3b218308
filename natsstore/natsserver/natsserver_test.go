package natsserver

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestStartPortTaken: a server whose cluster port is held by something
// else is never ready, and the error names the port.
func TestStartPortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = Start(Config{
		StoreDir:     t.TempDir(),
		ClusterName:  "taken",
		ClusterPort:  port,
		ReadyTimeout: 300 * time.Millisecond,
	})
	want := fmt.Sprintf("the cluster port 127.0.0.1:%d is in use", port)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Start with its cluster port taken = %v; want an error saying %q", err, want)
	}
}
