package tui_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/tui"
)

// screen is what the responder drew, read while it draws.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// after is what was written after the screen was given back (the last
// exit from the alternate screen), less its escape sequences.
func (s *screen) after() string {
	all := s.String()
	i := strings.LastIndex(all, ansi.ResetModeAltScreenSaveCursor)
	if i < 0 {
		return ""
	}
	return ansi.Strip(all[i+len(ansi.ResetModeAltScreenSaveCursor):])
}

// rig is a responder on a scripted terminal (an io.Pipe the test types
// into), and an orchestrator asking through it. Use it inside
// synctest.Test, and defer close.
type rig struct {
	t   *testing.T
	in  *io.PipeWriter
	out *screen
	r   *tui.Responder
	o   *askuser.Orchestrator
}

func newRig(t *testing.T, opts *tui.Options) *rig {
	pr, pw := io.Pipe()
	out := &screen{}
	r := tui.New(pr, out, opts)
	o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return &rig{t: t, in: pw, out: out, r: r, o: o}
}

func (g *rig) close() {
	g.r.Close()
	g.in.Close()
}

// ask starts asking f in session.
func (g *rig) ask(session string, f *askuser.Form) <-chan *askuser.Outcome {
	ch := make(chan *askuser.Outcome, 1)
	go func() {
		out, err := g.o.Handle(context.Background(), askuser.Request{Session: session, Form: f})
		if err != nil {
			g.t.Errorf("Handle: %v", err)
		}
		ch <- out
	}()
	return ch
}

// typeIn types keys, as a terminal sends them, once the screen reads.
func (g *rig) typeIn(keys string) {
	go func() { _, _ = io.WriteString(g.in, keys) }()
	synctest.Wait()
}

func envForm() *askuser.Form {
	return &askuser.Form{TimeoutSeconds: 120, Title: "Deploy", Questions: []askuser.Question{
		{ID: "env", Header: "Env", Text: "Which environment?", Options: []askuser.Option{
			{Label: "staging", Default: true}, {Label: "production"},
		}},
	}}
}

// TestRespondOnScriptedTerminal runs the whole program on a scripted
// terminal: 2 picks production and moves to the review tab, Enter
// submits; once the screen is given back, the responder prints what the
// ask came to.
func TestRespondOnScriptedTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		ch := g.ask("s", envForm())
		synctest.Wait()
		g.typeIn("2\r")
		out := <-ch
		if out.Status != askuser.StatusAnswered || out.Answers[0].Selected[0] != "production" {
			t.Errorf("outcome %s %+v, want answered production", out.Status, out.Answers)
		}
		g.r.Close()
		if got, want := g.out.after(), "Submitted: Env → production\n"; got != want {
			t.Errorf("after the screen: %q, want %q", got, want)
		}
	})
}

// TestRespondDeadlineKeepsWhatWasDone: what the person did before the
// deadline reaches the orchestrator as they do it: a confirmed tab as an
// answer, unconfirmed picks as a draft, which the deadline keeps where
// the question's rule says so.
func TestRespondDeadlineKeepsWhatWasDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		f := &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{
			{ID: "env", Header: "Env", Text: "Which environment?", Options: []askuser.Option{{Label: "staging"}, {Label: "production", Default: true}}},
			{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, OnDeadline: askuser.FallbackDraft,
				Options: []askuser.Option{{Label: "eu", Default: true}, {Label: "us"}, {Label: "ap"}}},
		}}
		ch := g.ask("s", f)
		synctest.Wait()
		g.typeIn("1") // staging, confirmed; on to Regions
		g.typeIn("3") // ap checked, not confirmed
		out := <-ch
		var got []string
		for _, a := range out.Answers {
			got = append(got, a.QuestionID+"="+strings.Join(a.Selected, ",")+" "+string(a.By)+map[bool]string{true: "+draft"}[a.Draft])
		}
		want := []string{"env=staging user", "regions=ap timeout+draft"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("at the deadline (-want +got):\n%s", diff)
		}
		g.r.Close()
		if got, want := g.out.after(), "Time is up: Env → staging (your answer), Regions → ap (your unconfirmed pick)\n"; got != want {
			t.Errorf("after the screen: %q, want %q", got, want)
		}
	})
}

// TestRespondDeadlineForgetsUncheckedPick: a pick the person checked and
// then unchecked is no draft any more: the deadline applies the question's
// default, not the pick.
func TestRespondDeadlineForgetsUncheckedPick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		f := &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{
			{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, OnDeadline: askuser.FallbackDraft,
				Options: []askuser.Option{{Label: "eu", Default: true}, {Label: "us"}, {Label: "ap"}}},
		}}
		ch := g.ask("s", f)
		synctest.Wait()
		g.typeIn("3") // ap checked: a draft
		synctest.Wait()
		g.typeIn("3") // ap unchecked: nothing is checked
		out := <-ch
		var got []string
		for _, a := range out.Answers {
			got = append(got, a.QuestionID+"="+strings.Join(a.Selected, ",")+" "+string(a.By)+map[bool]string{true: "+draft"}[a.Draft])
		}
		want := []string{"regions=eu timeout"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("at the deadline (-want +got):\n%s", diff)
		}
		g.r.Close()
	})
}

// TestRespondSeveralPending: asks that are pending together share the
// screen; PgDn shows the next, each is answered on its own, and the
// terminal is given back once, after the last, with both summaries.
func TestRespondSeveralPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		a := g.ask("a", envForm())
		synctest.Wait()
		second := envForm()
		second.Title = "Second"
		b := g.ask("b", second)
		synctest.Wait()
		g.typeIn("\x1b[6~") // PgDn: the second ask
		g.typeIn("1\r")
		if out := <-b; out.Answers[0].Selected[0] != "staging" {
			t.Errorf("the second ask: %+v", out.Answers)
		}
		if s := g.out.String(); strings.Count(s, ansi.ResetModeAltScreenSaveCursor) != 0 {
			t.Error("the screen was given back while an ask was still pending")
		}
		g.typeIn("2\r")
		if out := <-a; out.Answers[0].Selected[0] != "production" {
			t.Errorf("the first ask: %+v", out.Answers)
		}
		g.r.Close()
		if got, want := g.out.after(), "Submitted: Env → staging\nSubmitted: Env → production\n"; got != want {
			t.Errorf("after the screen: %q, want %q", got, want)
		}
	})
}

// TestCloseDismisses: Close dismisses the asks pending, and any that
// comes after it at once.
func TestCloseDismisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.in.Close()
		ch := g.ask("s", envForm())
		synctest.Wait()
		g.r.Close()
		if out := <-ch; out.Reason != askuser.ReasonDismissed {
			t.Errorf("a pending ask at Close: %s, want dismissed", out.Reason)
		}
		if out := <-g.ask("s", envForm()); out.Reason != askuser.ReasonDismissed {
			t.Errorf("an ask after Close: %s, want dismissed", out.Reason)
		}
	})
}

// TestSecretsOnlyFromATerminal: with a pipe for a terminal, a secret is
// never asked: the orchestrator is told nobody can collect it.
func TestSecretsOnlyFromATerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		if g.r.CanCollectSecrets() {
			t.Fatal("CanCollectSecrets is true for a pipe")
		}
		out := <-g.ask("s", &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{{ID: "t", Kind: askuser.KindSecret, Header: "Token", Text: "Token?", SecretName: "T"}}})
		if out.Reason != askuser.ReasonUnattended {
			t.Errorf("a secret on a pipe: %s, want unattended", out.Reason)
		}
		if g.out.String() != "" {
			t.Error("the screen was drawn for a secret it cannot ask")
		}
	})
}

// TestUsable: the full screen needs two terminals and a TERM that can
// draw one.
func TestUsable(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	defer pw.Close()
	if err := tui.Usable(pr, pw, []string{"TERM=xterm"}); err == nil {
		t.Error("Usable accepts pipes")
	}
}
