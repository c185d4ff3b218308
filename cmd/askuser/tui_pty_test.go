//go:build linux

package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// TestTUIOnPTY runs the built command on a pseudo-terminal that is its
// standard input, standard error and controlling terminal, with TERM set:
// ask draws the full screen there, the person answers with the keyboard,
// and the result is printed on standard output once the screen is given
// back.
func TestTUIOnPTY(t *testing.T) {
	bin := buildAskuser(t)
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")

	// Four questions, answered with number keys, a note, free text and the
	// review tab.
	t.Run("four questions", func(t *testing.T) {
		call := writeFile(t, "four.json", `{"questions":[
			{"id":"env","header":"Env","question":"Which environment?","options":[
				{"label":"staging","description":"Safe to break","default":true},
				{"label":"production","description":"Real users"}]},
			{"id":"regions","header":"Regions","question":"Which regions?","multi_select":true,"options":[
				{"label":"eu","description":"Europe","default":true},
				{"label":"us","description":"America"},
				{"label":"ap","description":"Asia"}]},
			{"id":"branch","kind":"text","header":"Branch","question":"Which branch name?"},
			{"id":"db","header":"Database","question":"Which database?","options":[
				{"label":"postgres","description":"The usual","default":true},
				{"label":"sqlite","description":"For tests"}]}],
			"timeout_seconds":120}`)
		p := startOnPTY(t, bin, true, "ask", "--request", call)
		p.waitFor("Which environment?")
		if p.echoOn() {
			t.Error("the terminal echoes while the screen is up")
		}
		p.press("N", "Your note on this question")
		p.press("after the standup\r", "Your note: after the standup")
		p.press("2", "space/1-4 toggle") // production, confirmed; on to Regions
		p.press("13\r", "branch name?")  // eu and ap, confirmed; on to Branch
		p.press("fix/login\r", "database?")
		p.press("3", "keep as draft")  // the free-text row: its editor
		p.press("mysql 8\r", "Submit") // saved and confirmed; on to the review
		p.typeIn("\r")
		stdout := p.wait()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null,"note":"after the standup"},{"id":"regions","selected":["eu","ap"],"other_text":null},{"id":"branch","selected":[],"other_text":"fix/login"},{"id":"db","selected":[],"other_text":"mysql 8"}]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if !p.echoAfter {
			t.Error("the terminal does not echo after the command exited")
		}
		screen := p.screen()
		if !strings.Contains(screen, "\x1b[?1049h") || !strings.Contains(screen, "\x1b[?1049l") {
			t.Error("the command did not use the alternate screen and give it back")
		}
		last := screen[strings.LastIndex(screen, "\x1b[?1049l"):]
		if !strings.Contains(last, `Submitted: Env → production, Regions → eu, ap, Branch → "fix/login", Database → "mysql 8"`) {
			t.Errorf("after the screen was given back, the terminal does not show what was submitted:\n%q", last)
		}
	})

	// One secret question: what is typed is never on the screen.
	t.Run("a secret", func(t *testing.T) {
		call := writeFile(t, "secret.json", `{"questions":[{"kind":"secret","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":60}`)
		const typed = "tok-Typed-4-The-Deploy-xyz"
		p := startOnPTY(t, bin, true, "ask", "--responder", "tui", "--request", call)
		p.waitFor("nothing typed yet")
		p.press(typed, "••••")
		p.press("\r", "handed over")
		p.typeIn("\r")
		stdout := p.wait()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		screen := p.screen()
		for _, part := range []string{typed, typed[4:14], typed[12:]} {
			if strings.Contains(screen, part) {
				t.Errorf("part of the secret (%d bytes) is in what the terminal was sent", len(part))
			}
		}
		if !p.echoAfter {
			t.Error("the terminal does not echo after the command exited")
		}
	})

	// TERM=dumb asks line by line.
	t.Run("TERM=dumb", func(t *testing.T) {
		t.Setenv("TERM", "dumb")
		call := writeFile(t, "choice.json", `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]}],"timeout_seconds":60}`)
		p := startOnPTY(t, bin, true, "ask", "--request", call)
		p.waitFor("Pick 1-3 (Enter for 1): ")
		p.typeIn("2\r")
		stdout := p.wait()
		if want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}` + "\n"; stdout != want {
			t.Errorf("result %q, want %q", stdout, want)
		}
		if strings.Contains(p.screen(), "\x1b[?1049h") {
			t.Error("the full screen was drawn with TERM=dumb")
		}
	})
}

// press types keys and waits until the terminal draws want after them
// (the escape sequences aside: the screen is drawn by differences, so a
// line that changes is written from its first changed cell, and a text
// that was there before is not written again).
func (p *ptyRun) press(keys, want string) {
	p.t.Helper()
	mark := len(p.screen())
	p.typeIn(keys)
	for limit := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(ansi.Strip(p.screen()[mark:]), want) {
			return
		}
		if time.Now().After(limit) {
			p.t.Fatalf("%q was not drawn after %q; the terminal shows:\n%q", want, keys, ansi.Strip(p.screen()[mark:]))
		}
	}
}

// TestTUISignalRestores: SIGTERM while the full screen is up ends the ask
// as one whose caller went away, and the terminal is given back as it
// was: out of the alternate screen, echoing again.
func TestTUISignalRestores(t *testing.T) {
	bin := buildAskuser(t)
	t.Setenv("TERM", "xterm-256color")
	call := writeFile(t, "choice.json", `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]}],"timeout_seconds":60}`)
	p := startOnPTY(t, bin, true, "ask", "--request", call)
	p.waitFor("Which environment?")
	if p.echoOn() {
		t.Fatal("the terminal echoes while the screen is up")
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stdout, state := p.exit()
	if !state.Exited() || stdout != "" {
		t.Errorf("after SIGTERM: %v, standard output %q; want an exit of its own and no result", state, stdout)
	}
	if !p.echoAfter {
		t.Error("the terminal does not echo after SIGTERM")
	}
	screen := p.screen()
	if last := screen[strings.LastIndex(screen, "\x1b[?1049h"):]; !strings.Contains(last, "\x1b[?1049l") {
		t.Error("the alternate screen was not left")
	}
}
