package mcpresponder

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// FuzzApprovalRead feeds the reading of a client's reply to an approval's
// form, content of any shape: it never panics; it returns either what is
// wrong, and no decision, or one decision responder.CheckAnswer accepts; it
// approves only on a boolean yes (and, for an action that cannot be
// undone, "approve" typed to confirm it); and what it says is wrong never
// repeats a credential the content holds.
func FuzzApprovalRead(f *testing.F) {
	for _, s := range []string{
		`{"approve":true}`,
		`{"approve":true,"remember":true,"note":"go ahead"}`,
		`{"approve":false,"remember":true,"confirm":"no"}`,
		`{"approve":true,"confirm":" APPROVE "}`,
		`{"approve":"true","confirm":"approve"}`,
		`{"approve":null,"remember":"yes","note":3}`,
		`{"approve":true,"note":"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`,
		`{"approve":true,"sudo":true}`,
		`{}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	forms := map[bool]*askuser.Form{}
	for _, irreversible := range []bool{false, true} {
		risk := approval.RiskHigh
		if irreversible {
			risk = approval.RiskIrreversible
		}
		af, err := approvaltool.Form(approval.Request{Action: "Delete the bucket logs-2019", Reason: "Old", Risk: risk}, 60)
		if err != nil {
			f.Fatal(err)
		}
		forms[irreversible] = af
	}
	f.Fuzz(func(t *testing.T, data []byte, irreversible bool) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		af := forms[irreversible]
		m := newApprovalForm(af, &call{})
		ans, problem := m.read(content)
		if problem != "" {
			if ans.QuestionID != "" || ans.Selected != nil {
				t.Errorf("a decision %+v with a problem %q", ans, problem)
			}
			for _, s := range stringsIn(content) {
				if _, found := secret.Detect(s); found && strings.Contains(problem, s) {
					t.Errorf("the problem %q repeats a credential", problem)
				}
			}
			return
		}
		if err := responder.CheckAnswer(af, ans); err != nil || len(ans.Selected) != 1 {
			t.Fatalf("decision %+v passed read but CheckAnswer refuses it: %v", ans, err)
		}
		switch ans.Selected[0] {
		case approval.ApproveOnce, approval.ApproveSession:
			if content["approve"] != true {
				t.Errorf("approved on approve = %#v", content["approve"])
			}
			if c, _ := content["confirm"].(string); irreversible && !strings.EqualFold(strings.TrimSpace(c), "approve") {
				t.Errorf("approved an action that cannot be undone without the confirmation (confirm = %#v)", content["confirm"])
			}
		default:
			if content["approve"] != false {
				t.Errorf("denied on approve = %#v", content["approve"])
			}
		}
		if (ans.Selected[0] == approval.ApproveSession || ans.Selected[0] == approval.DenySession) != (content["remember"] == true) {
			t.Errorf("decision %s with remember = %#v", ans.Selected[0], content["remember"])
		}
	})
}
