package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/secretstore"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/frames")

// A harness drives the model as the terminal and the responder would,
// with real asks from an orchestrator, inside a synctest bubble: the clock
// is the bubble's, so the frames are the same on every run.
type harness struct {
	t      *testing.T
	o      *askuser.Orchestrator
	m      *model
	asks   []*askuser.Ask
	outs   []chan *askuser.Outcome
	ended  []bool
	cancel []context.CancelFunc
	log    strings.Builder
}

// newHarness asks each form, in sessions of their own, and puts the asks
// on a model width×height, with colours off. Call it inside synctest.Test.
func newHarness(t *testing.T, width, height int, forms ...*askuser.Form) *harness {
	t.Helper()
	got := make(chan *askuser.Ask)
	h := &harness{t: t, m: newModel(plainTheme(), time.Now(), width, height)}
	h.m.codes = challenge.New(&cycle{}, false) // the codes are known: see cycle
	h.o = &askuser.Orchestrator{Secrets: secretstore.NewMemory(nil), Responder: takesApprovals{askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		got <- a
		<-ctx.Done()
		return nil
	})}}
	for i, f := range forms {
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan *askuser.Outcome, 1)
		go func() {
			o, err := h.o.Handle(ctx, askuser.Request{Session: fmt.Sprint("s", i), Form: f})
			if err != nil {
				o = nil
			}
			out <- o
		}()
		a := <-got
		h.asks = append(h.asks, a)
		h.outs = append(h.outs, out)
		h.ended = append(h.ended, false)
		h.cancel = append(h.cancel, cancel)
		h.m.Update(arrivedMsg{a})
	}
	t.Cleanup(func() {
		for i, c := range h.cancel {
			c()
			if !h.ended[i] {
				<-h.outs[i]
			}
		}
		h.o.WaitResponders()
	})
	return h
}

// takesApprovals is the harness's responder: the model stands for a
// person at a terminal, so it is handed approvals too.
type takesApprovals struct{ askuser.ResponderFunc }

func (takesApprovals) CanTakeApprovals() bool { return true }

// settle lets the orchestrator finish what the keys set off, and hands
// the model the outcome of every ask that has ended, as the responder
// does.
func (h *harness) settle() {
	synctest.Wait()
	for i, a := range h.asks {
		if h.ended[i] {
			continue
		}
		select {
		case <-a.Done():
			h.ended[i] = true
			<-h.outs[i]
			h.m.Update(endedMsg{a: a, o: a.Outcome()})
		default:
		}
	}
}

// press sends keys, written as keyMsg reads them, and records the frame
// after them under a heading that names them.
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		for _, msg := range keyMsgs(h.t, k) {
			h.m.Update(msg)
		}
	}
	h.settle()
	h.shot(strings.Join(keys, " "))
}

// wait lets d pass on the bubble's clock, with the clock's tick the
// responder sends, and records the frame.
func (h *harness) wait(d time.Duration) {
	time.Sleep(d)
	h.m.Update(tickMsg(time.Now()))
	h.settle()
	h.shot(fmt.Sprintf("(%v later)", d))
}

// pressAs is press, with the heading given: for keys that type a secret,
// which the record of the frames must not hold either.
func (h *harness) pressAs(heading string, keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		for _, msg := range keyMsgs(h.t, k) {
			h.m.Update(msg)
		}
	}
	h.settle()
	h.shot(heading)
}

// shot records the frame under a heading.
func (h *harness) shot(heading string) {
	if heading == "" {
		heading = "(start)"
	}
	f := h.m.frame()
	fmt.Fprintf(&h.log, "── %s\n%s\n", heading, f.text)
	if f.cursor {
		fmt.Fprintf(&h.log, "(cursor at column %d, line %d)\n", f.x, f.y)
	}
	checkFrame(h.t, f.text, h.m.width, h.m.height)
}

// checkFrame checks what every frame must be: at most width columns and
// height lines, and, with colours off, no control character but the
// newlines between lines (so nothing in it can act on the terminal).
func checkFrame(t *testing.T, text string, width, height int) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if len(lines) > height {
		t.Errorf("the frame has %d lines, more than the terminal's %d", len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d columns wide, more than the terminal's %d: %q", i+1, w, width, l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("line %d is not valid UTF-8: %q", i+1, l)
		}
		for _, r := range l {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Errorf("line %d holds the control character %U: %q", i+1, r, l)
			}
		}
	}
}

// golden compares what was recorded with testdata/frames/name.txt (or
// writes it, with -update).
func (h *harness) golden(name string) {
	h.t.Helper()
	path := filepath.Join("testdata", "frames", name+".txt")
	got := h.log.String()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		h.t.Errorf("frames of %s (-want +got):\n%s", name, diff)
	}
}

// outcome waits for ask i's outcome.
func (h *harness) outcome(i int) *askuser.Outcome {
	h.t.Helper()
	h.settle()
	a := h.asks[i]
	select {
	case <-a.Done():
	default:
		h.t.Fatalf("ask %d has not ended", i)
	}
	return a.Outcome()
}

// keyMsgs reads one key as the tests write them: a key's name as Bubble
// Tea spells it ("enter", "shift+tab", "ctrl+c", "alt+enter"), a single
// character, "paste:TEXT" for a bracketed paste, or "type:TEXT" for text
// typed a character at a time.
func keyMsgs(t *testing.T, k string) []tea.Msg {
	t.Helper()
	if s, ok := strings.CutPrefix(k, "paste:"); ok {
		return []tea.Msg{tea.PasteMsg{Content: s}}
	}
	if s, ok := strings.CutPrefix(k, "type:"); ok {
		var ms []tea.Msg
		for _, r := range s {
			ms = append(ms, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		return ms
	}
	named := map[string]tea.KeyPressMsg{
		"enter":      {Code: tea.KeyEnter},
		"alt+enter":  {Code: tea.KeyEnter, Mod: tea.ModAlt},
		"ctrl+j":     {Code: 'j', Mod: tea.ModCtrl},
		"tab":        {Code: tea.KeyTab},
		"shift+tab":  {Code: tea.KeyTab, Mod: tea.ModShift},
		"esc":        {Code: tea.KeyEscape},
		"up":         {Code: tea.KeyUp},
		"down":       {Code: tea.KeyDown},
		"left":       {Code: tea.KeyLeft},
		"right":      {Code: tea.KeyRight},
		"space":      {Code: tea.KeySpace, Text: " "},
		"backspace":  {Code: tea.KeyBackspace},
		"pgdown":     {Code: tea.KeyPgDown},
		"pgup":       {Code: tea.KeyPgUp},
		"ctrl+c":     {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+u":     {Code: 'u', Mod: tea.ModCtrl},
		"home":       {Code: tea.KeyHome},
		"shift+down": {Code: tea.KeyDown, Mod: tea.ModShift},
		"shift+up":   {Code: tea.KeyUp, Mod: tea.ModShift},
	}
	if msg, ok := named[k]; ok {
		return []tea.Msg{msg}
	}
	if r, size := utf8.DecodeRuneInString(k); size == len(k) {
		return []tea.Msg{tea.KeyPressMsg{Code: r, Text: k}}
	}
	t.Fatalf("the harness does not know the key %q", k)
	return nil
}
