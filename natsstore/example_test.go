package natsstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// A single machine: an embedded NATS server keeps askuser's state in a
// directory; orchestrators given the store's Pending and Journal share
// their asks.
func Example() {
	dir, _ := os.MkdirTemp("", "askuser-nats")
	defer os.RemoveAll(dir)
	srv, err := natsserver.Start(natsserver.Config{StoreDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)

	ctx := context.Background()
	store, err := natsstore.Open(ctx, js, natsstore.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := store.Asks()
	rev, _ := p.Create(ctx, "0a1b", []byte(`{"state":"pending"}`))
	_, err = p.Update(ctx, "0a1b", []byte(`{"state":"answered"}`), rev)
	fmt.Println(err)
	_, err = p.Update(ctx, "0a1b", []byte(`{"state":"expired"}`), rev) // too late
	fmt.Println(err)
	// Output:
	// <nil>
	// natsstore: updating pending ask 0a1b at revision 1: store: the pending ask changed meanwhile (another writer came first)
}
