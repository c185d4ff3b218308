package tui_test

import (
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
)

// TestRespondEnterSendsOnlyWhatIsChecked runs the whole responder on a
// scripted terminal: 2 checks EU, 2 unchecks it, and Enter must not send
// it; 1 and Enter then confirm US, and Enter on the review submits US
// alone.
func TestRespondEnterSendsOnlyWhatIsChecked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		ch := g.ask("s", &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{
			{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, Options: []askuser.Option{
				{Label: "US"}, {Label: "EU"}, {Label: "AP"},
			}},
		}})
		synctest.Wait()
		for _, k := range []string{"2", "2", "\r", "1", "\r", "\r"} {
			g.typeIn(k)
		}
		out := <-ch
		if out.Status != askuser.StatusAnswered || len(out.Answers) != 1 {
			t.Fatalf("outcome %s %+v, want answered", out.Status, out.Answers)
		}
		if diff := cmp.Diff([]string{"US"}, out.Answers[0].Selected); diff != "" {
			t.Errorf("submitted (-want +got):\n%s", diff)
		}
	})
}
