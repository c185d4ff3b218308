// Package natsserver runs a NATS server with JetStream inside the
// process, for a single machine and for tests: askuser serve uses it when
// it is given no cluster to join, and natsstore's tests use it for their
// servers and clusters. A client of natsstore, which connects to a NATS
// server run elsewhere, never needs it, and a program that does not
// import it compiles no server.
package natsserver

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Config configures a NATS server run inside the process.
type Config struct {
	// StoreDir is where JetStream keeps its files. Required.
	StoreDir string
	// Host is the address clients connect to (default 127.0.0.1).
	Host string
	// Port is the client port; 0 picks a free one.
	Port int
	// ServerName names the server; it must be the same across restarts
	// of a clustered server (default "askuser").
	ServerName string
	// Token, when set, is the token every client must present.
	Token string
	// ClusterName, when set, makes the server a member of that cluster,
	// listening for routes on ClusterHost:ClusterPort (default
	// 127.0.0.1, and 0 picks a free port) and joining the servers at
	// Routes ("nats-route://host:port").
	ClusterName string
	ClusterHost string
	ClusterPort int
	Routes      []string
	// ReadyTimeout bounds how long Start waits for the server to accept
	// connections (default 10 seconds).
	ReadyTimeout time.Duration
}

// A Server is a NATS server with JetStream running in this process.
type Server struct {
	srv   *server.Server
	token string
}

// Start starts a NATS server with JetStream and returns once it accepts
// connections.
func Start(cfg Config) (*Server, error) {
	if cfg.StoreDir == "" {
		return nil, errors.New("natsserver: an embedded NATS server needs a StoreDir for JetStream's files")
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.ServerName == "" {
		cfg.ServerName = "askuser"
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 10 * time.Second
	}
	opts := &server.Options{
		ServerName:    cfg.ServerName,
		Host:          cfg.Host,
		Port:          pickPort(cfg.Port),
		JetStream:     true,
		StoreDir:      cfg.StoreDir,
		Authorization: cfg.Token,
		NoSigs:        true,
		NoLog:         true,
	}
	if cfg.ClusterName != "" {
		if cfg.ClusterHost == "" {
			cfg.ClusterHost = "127.0.0.1"
		}
		opts.Cluster = server.ClusterOpts{Name: cfg.ClusterName, Host: cfg.ClusterHost, Port: pickPort(cfg.ClusterPort)}
		for _, r := range cfg.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("natsserver: route %q: a route is a URL such as nats-route://127.0.0.1:6222", r)
			}
			opts.Routes = append(opts.Routes, u)
		}
	} else if len(cfg.Routes) > 0 {
		return nil, errors.New("natsserver: routes need a ClusterName")
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsserver: configuring the embedded NATS server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(cfg.ReadyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("natsserver: the embedded NATS server was not ready within %v%s", cfg.ReadyTimeout, portsInUse(cfg))
	}
	return &Server{srv: srv, token: cfg.Token}, nil
}

// portsInUse names, for an error, the fixed ports of cfg that something
// else holds: a port taken is what keeps a server from ever being ready.
func portsInUse(cfg Config) string {
	var taken []string
	probe := func(what, host string, port int) {
		if port <= 0 {
			return
		}
		hp := net.JoinHostPort(host, strconv.Itoa(port))
		l, err := net.Listen("tcp", hp)
		if err != nil {
			taken = append(taken, what+" port "+hp)
			return
		}
		l.Close()
	}
	probe("client", cfg.Host, cfg.Port)
	if cfg.ClusterName != "" {
		probe("cluster", cfg.ClusterHost, cfg.ClusterPort)
	}
	if len(taken) == 0 {
		return ""
	}
	verb := " is"
	if len(taken) > 1 {
		verb = " are"
	}
	return ": the " + strings.Join(taken, " and the ") + verb + " in use; pick another or stop what holds it"
}

// pickPort turns "0: pick one" into what the server means by it.
func pickPort(p int) int {
	if p == 0 {
		return server.RANDOM_PORT
	}
	return p
}

// ClientURL is the URL clients connect to.
func (s *Server) ClientURL() string { return s.srv.ClientURL() }

// ClusterURL is the route URL other members of the cluster join, or ""
// when the server is in no cluster.
func (s *Server) ClusterURL() string {
	a := s.srv.ClusterAddr()
	if a == nil {
		return ""
	}
	return "nats-route://" + net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port))
}

// Server is the running NATS server, for what this type does not cover.
func (s *Server) Server() *server.Server { return s.srv }

// Connect connects a client to the server, with its token when it has
// one; opts come after, so they may override.
func (s *Server) Connect(opts ...nats.Option) (*nats.Conn, error) {
	if s.token != "" {
		opts = append([]nats.Option{nats.Token(s.token)}, opts...)
	}
	nc, err := nats.Connect(s.ClientURL(), opts...)
	if err != nil {
		return nil, fmt.Errorf("natsserver: connecting to the embedded NATS server: %w", err)
	}
	return nc, nil
}

// Shutdown stops the server and returns once it has stopped.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}
