package tui

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
)

// regionsForm is one multi-select whose second option is EU.
func regionsForm() *askuser.Form {
	return &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{
		{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, Options: []askuser.Option{
			{Label: "US"}, {Label: "EU"}, {Label: "AP"},
		}},
	}}
}

// TestEnterConfirmsWhatTheTabShows: on a multi-select, 2 checks EU and 2
// again unchecks it (the row shows [ ]); Enter then confirms nothing (and
// says what is missing): it does not check the row under the cursor, the
// review does not list EU, and nothing is reported. Enter after 1 then
// confirms US alone.
func TestEnterConfirmsWhatTheTabShows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, regionsForm())
		h.press("2", "2")
		if f := h.m.frame().text; !strings.Contains(f, "› [ ] 2. EU") {
			t.Fatalf("after 2 2 the EU row is not shown unchecked:\n%s", f)
		}
		h.press("enter")
		if got := h.accepted(0); len(got) != 0 {
			t.Errorf("Enter on a tab with nothing checked confirmed %v", got)
		}
		f := h.m.frame().text
		if !strings.Contains(f, "› [ ] 2. EU") || !strings.Contains(f, "Nothing to confirm yet: check an option") {
			t.Errorf("after Enter the tab does not show EU unchecked and what is missing:\n%s", f)
		}
		h.press("tab")
		if f := h.m.frame().text; strings.Contains(f, "Regions: EU") || !strings.Contains(f, "○ Regions: still open") {
			t.Errorf("the review does not show the tab as it is:\n%s", f)
		}
		h.press("shift+tab", "1", "enter")
		want := askuser.Answer{QuestionID: "regions", Selected: []string{"US"}}
		if diff := cmp.Diff(want, h.accepted(0)["regions"], noSecret); diff != "" {
			t.Errorf("the confirmed answer (-want +got):\n%s", diff)
		}
	})
}
