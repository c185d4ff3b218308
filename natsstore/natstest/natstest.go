// Package natstest opens a natsstore.Store on a NATS server with JetStream
// run inside the test's process, as net/http/httptest serves HTTP: for the
// tests of packages that use the store, so each need not start, connect and
// open it itself. The server, its connection and its files go away when
// the test ends.
package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// Open starts an embedded NATS server with JetStream in a temporary
// directory of tb's, connects to it and opens a store on it with cfg. It
// stops tb at the first failure.
func Open(tb testing.TB, cfg natsstore.Config) *natsstore.Store {
	tb.Helper()
	e, err := natsserver.Start(natsserver.Config{StoreDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Shutdown)
	nc, err := e.Connect()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := natsstore.Open(ctx, js, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
