package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/web"
)

// A card that takes approvals admits the person by an approval code, shown
// where only they read it (askuser's command shows it on its terminal).
// Whoever merely holds the card's URL can see the approval, but not decide
// it; the person types the code and decides.
func Example_approval() {
	code := web.NewApprovalCode()
	r := web.New(&web.Options{ApprovalCode: code})
	defer r.Close()
	srv := httptest.NewServer(r)
	defer srv.Close()

	o := &askuser.Orchestrator{Responder: r}
	form, err := approvaltool.Form(approval.Request{
		Action: "Restart the login service",
		Reason: "It holds a stale certificate",
		Risk:   approval.RiskMedium,
	}, 60)
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan *askuser.Outcome)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "demo", Form: form})
		done <- out
	}()

	var list struct {
		CSRFToken string `json:"csrf_token"`
		Asks      []struct {
			ID       string `json:"id"`
			Approval struct {
				Action    string `json:"action"`
				Risk      string `json:"risk"`
				NeedsCode bool   `json:"needs_code"`
			} `json:"approval"`
		} `json:"asks"`
	}
	for len(list.Asks) == 0 {
		time.Sleep(10 * time.Millisecond)
		res, err := http.Get(srv.URL + "/api/sessions/demo/asks")
		if err != nil {
			fmt.Println(err)
			return
		}
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
	}
	ap := list.Asks[0].Approval
	fmt.Printf("%s (%s risk); needs the code: %v\n", ap.Action, ap.Risk, ap.NeedsCode)

	decide := func(choice, code string) int {
		body := fmt.Sprintf(`{"answers": {"approval": {"selected": [%q], "note": "after 18:00"}}, "code": %q}`, choice, code)
		req, _ := http.NewRequest("POST", srv.URL+"/api/asks/"+list.Asks[0].ID+"/submit", bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", list.CSRFToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	fmt.Println("without the code:", decide("approve", ""))
	fmt.Println("with the code:", decide("approve", code))
	v, _ := approvaltool.VerdictOf(<-done)
	fmt.Println(v.Status, "by", v.DecidedBy, "with the note", v.Note)
	// Output:
	// Restart the login service (medium risk); needs the code: true
	// without the code: 403
	// with the code: 200
	// approved by user with the note after 18:00
}
