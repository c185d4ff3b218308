package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/secretstore"
)

// askuser mcp --nats URL puts the server on the fleet's store in NATS
// JetStream, as a replica of askuser serve joins it: its pending asks, the
// journal, sealed secrets and remembered decisions are the store's, so
// that several askuser mcp servers behind a load balancer serve one ask
// between them (see package mcpresponder's Tool). The flags are serve's,
// with the same meaning; it joins a NATS server or cluster and embeds
// none.

// mcpNATSFlags are askuser mcp's NATS flags.
type mcpNATSFlags struct {
	url, tokenFile   string
	replicas         int
	journalRetention time.Duration
}

func (f *mcpNATSFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "nats", "", "keep the pending asks, the journal, secrets and remembered decisions in the NATS server or cluster at `URL` (nats://host:port, comma-separated for several), shared with every askuser mcp and askuser serve on it, so that a retry is served by any of them; needs the fleet's key ring (--key-file or $"+secretstore.KeyEnv+")")
	fs.StringVar(&f.tokenFile, "nats-token-file", "", "with --nats, present the NATS client token in `FILE`, mode 0600 (serve's --nats-token-file)")
	fs.IntVar(&f.replicas, "nats-replicas", 1, "with --nats, how many NATS servers keep each bucket and stream this server creates: `N` from 1 to 5 (3 on a cluster that must outlive losing a server)")
	fs.DurationVar(&f.journalRetention, "journal-retention", 0, "with --nats, keep journal records for `DURATION` (720h, say; at least 1h), and set it on the fleet's journal; without it, the journal's retention stays as it is")
}

// check refuses NATS flags without --nats, and flags that keep locally
// what --nats keeps in the store.
func (f *mcpNATSFlags) check(set map[string]bool) error {
	if f.url == "" {
		for _, name := range []string{"nats-token-file", "nats-replicas", "journal-retention"} {
			if set[name] {
				return fmt.Errorf("--%s is for --nats: give the NATS server's URL with --nats", name)
			}
		}
		return nil
	}
	for _, name := range []string{"journal", "store", "consents"} {
		if set[name] {
			return fmt.Errorf("--%s keeps in a file what --nats keeps in the fleet's store (the journal, sealed secrets and remembered decisions are the fleet's there); give one of them", name)
		}
	}
	envKey := strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != ""
	switch {
	case !set["key-file"] && !envKey:
		return fmt.Errorf("--nats needs the fleet's key ring, the same on every server, which seals the requestStates and the secrets: give --key-file FILE or set $%s", secretstore.KeyEnv)
	case f.replicas < 1 || f.replicas > 5:
		return fmt.Errorf("--nats-replicas %d: NATS keeps a bucket on 1 to 5 servers", f.replicas)
	case f.journalRetention < 0 || f.journalRetention > 0 && f.journalRetention < natsstore.DuplicateWindow:
		return fmt.Errorf("--journal-retention %v: at least %v, the window in which a second record of one ask is dropped (or leave it out to keep the journal's retention as it is)", f.journalRetention, natsstore.DuplicateWindow)
	}
	return nil
}

// An mcpStore is the fleet's store and the connection that holds it.
type mcpStore struct {
	*natsstore.Store
	nc *nats.Conn
}

func (s *mcpStore) close() { s.nc.Close() }

// open connects to --nats and opens the store there, creating its buckets
// and streams where they do not exist yet.
func (f *mcpNATSFlags) open(ctx context.Context, ring *secretstore.KeyRing) (*mcpStore, error) {
	if ring == nil {
		return nil, errors.New("--nats needs the fleet's key ring: give --key-file FILE or set $" + secretstore.KeyEnv)
	}
	nc, err := connectNATS(f.url, f.tokenFile)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	var st *natsstore.Store
	if err == nil {
		octx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
		st, err = natsstore.Open(octx, js, natsstore.Config{Replicas: f.replicas, JournalRetention: f.journalRetention, Keys: ring})
		cancel()
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("--nats %s: %w", f.url, err)
	}
	return &mcpStore{Store: st, nc: nc}, nil
}
