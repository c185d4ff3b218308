package email

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natstest"
	"github.com/askuser-go/askuser/store"
)

// fleetStores are the ways the replicas share their pending asks and
// notes: in memory, and on JetStream (an embedded NATS server).
var fleetStores = map[string]func(t *testing.T) (store.Pending, store.Notes){
	"memory": func(*testing.T) (store.Pending, store.Notes) { return store.NewMemory(0), &store.MemoryNotes{} },
	"jetstream": func(t *testing.T) (store.Pending, store.Notes) {
		s := natstest.Open(t, natsstore.Config{})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		notes, err := s.Notes(ctx, "email", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return s.Asks(), notes
	},
}

// codeFleet is two replicas that send approvals' codes apart, sharing a
// pending-ask store and notes; an approval begun on A; its code and its
// approve link.
type codeFleet struct {
	rs      []*Responder
	os      []*askuser.Orchestrator
	code    string
	approve string
}

func newCodeFleet(t *testing.T, open func(t *testing.T) (store.Pending, store.Notes)) *codeFleet {
	t.Helper()
	m := newMailbox(t, false)
	st, notes := open(t)
	send, sent := codeSender(nil)
	f := &codeFleet{}
	for range 2 {
		r := newResponder(t, m, Options{Notes: notes, Logger: quiet, SendCode: send})
		o := &askuser.Orchestrator{Responder: r, Asks: st, Logger: quiet}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); o.WaitResponders() })
		f.rs, f.os = append(f.rs, r), append(f.os, o)
	}
	if _, err := f.os[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(), Arguments: []byte(approvalCall)}); err != nil {
		t.Fatal(err)
	}
	f.code = (<-sent).code
	_, text, _ := parts(t, m.next(t))
	f.approve = linkRE.FindAllStringSubmatch(text, -1)[0][1]
	return f
}

// TestFleetApprovalCode: wrong codes typed on A's confirm page count on
// B's: B says how many attempts the fleet has left, and the right code
// typed on B decides A's approval.
func TestFleetApprovalCode(t *testing.T) {
	for name, open := range fleetStores {
		t.Run(name, func(t *testing.T) {
			f := newCodeFleet(t, open)
			a, b := f.rs[0], f.rs[1]
			for i := range 2 {
				if rec := post(a, f.approve, "WRONG-CODE"); rec.Code != http.StatusForbidden {
					t.Fatalf("wrong code %d on A: %d %s", i+1, rec.Code, rec.Body)
				}
			}
			if rec := post(b, f.approve, "WRONG-CODE"); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "2 attempts are left") {
				t.Fatalf("a wrong code on B after two on A: %d %s; want 403 with 2 attempts left", rec.Code, rec.Body)
			}
			if rec := post(b, f.approve, f.code); rec.Code != http.StatusOK {
				t.Fatalf("the right code on B: %d %s", rec.Code, rec.Body)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := f.os[0].Await(ctx, "s", "c")
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := approvaltool.VerdictOf(res); v.Status != approval.Approved || v.DecidedBy != askuser.ByUser {
				t.Errorf("A's verdict %+v; want approved by the user", v)
			}
		})
	}
}

// TestFleetApprovalCodeAttempts: MaxCodeAttempts wrong codes, typed on A
// and on B, spend the approval's attempts on both: the right code is then
// refused on either, and the approval stays pending.
func TestFleetApprovalCodeAttempts(t *testing.T) {
	for name, open := range fleetStores {
		t.Run(name, func(t *testing.T) {
			f := newCodeFleet(t, open)
			a, b := f.rs[0], f.rs[1]
			for i := range MaxCodeAttempts {
				r := a
				if i >= 3 {
					r = b
				}
				rec := post(r, f.approve, "WRONG-CODE")
				if rec.Code != http.StatusForbidden {
					t.Fatalf("wrong code %d: %d %s", i+1, rec.Code, rec.Body)
				}
				if i == MaxCodeAttempts-1 && !strings.Contains(rec.Body.String(), "last attempt") {
					t.Errorf("the last wrong code, on B: %s; want it to say it was the last", rec.Body)
				}
			}
			for name, r := range map[string]*Responder{"A": a, "B": b} {
				if rec := post(r, f.approve, f.code); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "no longer decided by email") {
					t.Errorf("the right code on %s after the fleet's attempts: %d %s; want 403", name, rec.Code, rec.Body)
				}
			}
			if p := f.os[1].Pending("s"); len(p) != 1 {
				t.Errorf("the approval was decided: %+v", p)
			}
			f.os[0].Supersede("s")
		})
	}
}

// TestFleetApprovalCodeRace: wrong codes typed at once on both replicas
// are each counted: of MaxCodeAttempts+4 of them, MaxCodeAttempts are
// told how many attempts are left (the last that it was the last), and
// the others that none is.
func TestFleetApprovalCodeRace(t *testing.T) {
	for name, open := range fleetStores {
		t.Run(name, func(t *testing.T) {
			f := newCodeFleet(t, open)
			defer f.os[0].Supersede("s")
			n := MaxCodeAttempts + 4
			bodies := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { bodies[i] = post(f.rs[i%2], f.approve, "WRONG-CODE").Body.String() })
			}
			wg.Wait()
			counted, last, spent := 0, 0, 0
			for _, b := range bodies {
				switch {
				case strings.Contains(b, "attempts are left"):
					counted++
				case strings.Contains(b, "last attempt"):
					last++
				case strings.Contains(b, "no longer decided by email"):
					spent++
				}
			}
			if counted != MaxCodeAttempts-1 || last != 1 || spent != n-MaxCodeAttempts {
				t.Errorf("of %d racing wrong codes, %d counted, %d the last, %d refused as spent; want %d, 1, %d", n, counted, last, spent, MaxCodeAttempts-1, n-MaxCodeAttempts)
			}
		})
	}
}
