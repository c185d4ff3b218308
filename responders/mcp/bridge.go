package mcpresponder

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
)

// DefaultBridgeAfter is how long a tool call waits for the person in the
// client before a Bridge hands its ask on: well under the 180 seconds
// after which some clients give a tool call up.
const DefaultBridgeAfter = 90 * time.Second

// A Bridge hands on an ask that the person has not answered in the MCP
// client within After to another responder (the web card, Slack), so
// that the client, which may give up a tool call that stays open for
// long, is not kept waiting: the tool call returns at once a result that
// says where the ask went, and the ask stays pending there, until the
// person answers it or its deadline comes. It is then finalized and
// journaled as any other ask. It applies to calls that stay open while
// the person answers (clients before 2026-07-28); from 2026-07-28 on a
// call never waits for the person.
type Bridge struct {
	// After is how long the client is given (zero: DefaultBridgeAfter).
	After time.Duration
	// To is the responder the ask goes on to.
	To askuser.Responder
	// Where says where the person finds the ask on To (the card's page
	// for it, a Slack channel), for the model to tell them; nil or empty:
	// "another channel". It must carry no credential: the model reads it.
	Where func(a *askuser.Ask) string
}

func (b *Bridge) after() time.Duration {
	if b.After > 0 {
		return b.After
	}
	return DefaultBridgeAfter
}

// bridgeKey keys the bridgeCall of a tool call that stays open while the
// person answers (clients before 2026-07-28), which Tool serves.
type bridgeKey struct{}

// A bridgeCall is how the responder tells such a tool call that it may
// return before the ask ends: the ask went on through the Tool's Bridge,
// or the person's replies did not fit the form MaxRounds times.
type bridgeCall struct {
	b    *Bridge      // nil: none, only the end of the rounds returns early
	went chan bridged // holds one
}

// bridged is why a call returns before its ask ends.
type bridged struct {
	ask      string
	where    string // where the ask went, when handedOn
	expires  time.Time
	handedOn bool         // the ask went on through the bridge
	capped   *roundsError // the rounds ended: the replies did not fit
}

// roundsEnded is what converse returns after the reply to its last form
// did not fit either: the person is asked nothing more in the client.
type roundsEnded struct{ problem string }

func (e *roundsEnded) Error() string {
	return "mcpresponder: the person's reply did not fit the form " + strconv.Itoa(MaxRounds) + " times"
}

// ended reports the end of the rounds that err says, if it does.
func ended(err error) *roundsEnded {
	var re *roundsEnded
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// bridge asks by ask (the form, from within the call) until the bridge's
// After, or until the rounds end, and then hands the ask on to the
// bridge's responder, telling the tool call where it went. Without a
// bridge, past the rounds, it tells the call so, and the ask waits for
// its deadline. Without a bridgeCall on ctx (a call that Tool does not
// serve, which cannot return early) the ask waits for its deadline past
// the rounds.
func (r *Responder) bridge(ctx context.Context, a *askuser.Ask, c *call, ask func(context.Context, *askuser.Ask, *call) error) error {
	bc, _ := ctx.Value(bridgeKey{}).(*bridgeCall)
	if bc == nil || bc.b == nil || bc.b.To == nil {
		err := ask(ctx, a, c)
		re := ended(err)
		if re == nil {
			return err // the ask ended, or its context did
		}
		if bc != nil {
			bc.went <- bridged{ask: a.ID(), expires: a.Form().ExpiresAt, capped: cappedInCall(a, re.problem)}
		}
		<-ctx.Done() // the deadline decides
		return nil
	}
	actx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- ask(actx, a, c) }()
	timer := time.NewTimer(bc.b.after())
	defer timer.Stop()
	var re *roundsEnded
	select {
	case err := <-done:
		if re = ended(err); re == nil {
			return err
		}
	case <-ctx.Done():
		stop()
		<-done
		return nil
	case <-timer.C:
		stop()
		if err := <-done; ctx.Err() != nil {
			return nil
		} else if re = ended(err); re == nil && err != nil {
			return err
		}
		select {
		case <-a.Done(): // the ask ended as the time came
			return nil
		default:
		}
	}
	where := ""
	if bc.b.Where != nil {
		where = bc.b.Where(a)
	}
	w := bridged{ask: a.ID(), where: where, expires: a.Form().ExpiresAt, handedOn: true}
	if re != nil {
		w.capped = cappedInCall(a, re.problem)
	}
	bc.went <- w
	return bc.b.To.Respond(ctx, a)
}

// bridgeHandle answers a tool call that stays open while the person
// answers: the ask is asked as Handle asks it, until its end, or until
// the responder says that the call may return before it (the ask went on
// through the Bridge, or the replies did not fit the form MaxRounds
// times); then the call returns that, and the ask goes on without it.
func (t *Tool) bridgeHandle(ctx context.Context, req *mcp.CallToolRequest, args []byte) (*mcp.CallToolResult, error) {
	stop := t.progress(ctx, req)
	defer stop()
	bc := &bridgeCall{b: t.Bridge, went: make(chan bridged, 1)}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	hctx = context.WithValue(context.WithValue(hctx, callKey{}, newCall(req, nil)), bridgeKey{}, bc)
	release, ok := t.bridges.add(cancel)
	if !ok {
		cancel()
		return errorResult(t.dialect().Name(), errClosed.Error()), nil
	}
	done := make(chan handled, 1)
	r := askuser.Request{Session: t.session(req), ToolCallID: newToolCallID(), Dialect: t.dialect(), Arguments: args}
	go func() {
		defer release()
		out, err := t.o.Handle(hctx, r)
		cancel()
		done <- handled{out, err}
	}()
	select {
	case h := <-done:
		return t.result(h.out, h.err)
	case w := <-bc.went:
		select {
		case h := <-done:
			return t.result(h.out, h.err)
		default:
		}
		return bridgedResult(t.dialect().Name(), w, time.Now()), nil
	case <-ctx.Done():
		cancel() // the caller went away first: the ask ends as its caller gone
		<-done
		return nil, ctx.Err()
	}
}

// bridgedResult tells the model why the call returned before its ask
// ended: the ask went on, and where, or the person's replies did not fit
// the form (a result marked isError, as from 2026-07-28 on).
func bridgedResult(tool string, w bridged, now time.Time) *mcp.CallToolResult {
	if !w.handedOn {
		return errorResult(tool, w.capped.message(now))
	}
	where := w.where
	if where == "" {
		where = "another channel"
	}
	text := tool + ": the person has not answered here yet, so the question went on to " + where +
		", where it stays open until " + w.expires.UTC().Format(time.RFC3339) +
		" (ask " + w.ask + "). Its answer is journaled there; this call has no answer. Tell the person where to answer if they asked you to, and go on without the answer."
	if w.capped != nil {
		text = tool + ": " + w.capped.lead() + ", so the question went on to " + where +
			", where it stays open until " + w.expires.UTC().Format(time.RFC3339) +
			" (ask " + w.ask + "). Nothing of those replies was kept; its answer is journaled there, and this call has no answer. Tell the person to answer there, and go on without the answer; do not ask it again here."
	}
	meta, _ := json.Marshal(map[string]any{"askId": w.ask, "where": w.where, "expiresAt": w.expires.UTC().Format(time.RFC3339)})
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		Meta:    mcp.Meta{"askuser/bridged": json.RawMessage(meta)},
		IsError: w.capped != nil,
	}
}

// bridges counts a Tool's bridged calls, whose asks go on after their
// calls return, so that Close ends and waits for them.
type bridges struct {
	mu      sync.Mutex
	closed  bool
	next    uint64
	cancels map[uint64]context.CancelFunc
	running sync.WaitGroup
}

// add counts a call in, unless the Tool is closed, and returns the
// function that counts it out.
func (b *bridges) add(cancel context.CancelFunc) (done func(), ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, false
	}
	if b.cancels == nil {
		b.cancels = map[uint64]context.CancelFunc{}
	}
	id := b.next
	b.next++
	b.cancels[id] = cancel
	b.running.Add(1)
	return func() {
		b.mu.Lock()
		delete(b.cancels, id)
		b.mu.Unlock()
		b.running.Done()
	}, true
}

// close ends the asks still going on, as their caller gone, and waits
// for them.
func (b *bridges) close() {
	b.mu.Lock()
	b.closed = true
	for _, c := range b.cancels {
		c()
	}
	b.mu.Unlock()
	b.running.Wait()
}
