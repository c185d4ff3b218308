package responder_test

import (
	"context"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// named is a responder with a name.
type named string

func (named) Respond(context.Context, *askuser.Ask) error { return nil }
func (n named) ResponderName() string                     { return string(n) }

// plain is a responder with no optional interface.
type plain struct{}

func (plain) Respond(context.Context, *askuser.Ask) error { return nil }

// wrapper wraps a responder; with a name of its own it answers for it.
type wrapper struct {
	inner askuser.Responder
}

func (w *wrapper) Respond(ctx context.Context, a *askuser.Ask) error { return w.inner.Respond(ctx, a) }
func (w *wrapper) Unwrap() askuser.Responder                         { return w.inner }

type namedWrapper struct{ wrapper }

func (namedWrapper) ResponderName() string { return "outer" }

// TestOptional: an optional interface is found on the responder, or down
// its chain of Unwrap, the first of the chain answering for it; not on a
// responder without it, a nil one, or a chain that loops.
func TestOptional(t *testing.T) {
	loop := &wrapper{}
	loop.inner = &wrapper{inner: loop}
	tests := []struct {
		name string
		r    askuser.Responder
		want string // "" for not found
	}{
		{"on the responder", named("card"), "card"},
		{"down the chain", &wrapper{inner: &wrapper{inner: named("card")}}, "card"},
		{"a wrapper's own first", &namedWrapper{wrapper{inner: named("card")}}, "outer"},
		{"nowhere", &wrapper{inner: plain{}}, ""},
		{"a chain ending in nil", &wrapper{}, ""},
		{"nil", nil, ""},
		{"a loop", loop, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := responder.Optional[askuser.Named](tt.r)
			got := ""
			if ok {
				got = n.ResponderName()
			}
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Optional[Named] = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}
