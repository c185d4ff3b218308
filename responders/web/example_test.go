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
	"github.com/askuser-go/askuser/responders/web"
)

// The embedding program mounts the responder under a prefix of its own
// server; a front end (here, plain HTTP calls) lists the session's pending
// asks, puts an answer and submits.
func Example() {
	r := web.New(nil)
	defer r.Close()
	mux := http.NewServeMux()
	mux.Handle("/askuser/", http.StripPrefix("/askuser", r))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	o := &askuser.Orchestrator{Responder: r}
	done := make(chan *askuser.Outcome)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "demo", Arguments: []byte(`{
			"questions": [{"id": "env", "header": "Env", "question": "Where should the release go first?",
				"options": [{"label": "staging", "description": "Run the smoke tests there", "default": true},
				            {"label": "production", "description": "Behind the feature flag"}]}]}`)})
		done <- out
	}()

	// The page at /askuser/sessions/demo does the same through the card.
	var list struct {
		CSRFToken string `json:"csrf_token"`
		Asks      []struct {
			ID        string `json:"id"`
			Questions []struct {
				ID      string `json:"id"`
				Options []struct {
					Value       string `json:"value"`
					Recommended bool   `json:"recommended"`
				} `json:"options"`
			} `json:"questions"`
		} `json:"asks"`
	}
	for len(list.Asks) == 0 {
		time.Sleep(10 * time.Millisecond)
		res, err := http.Get(srv.URL + "/askuser/api/sessions/demo/asks")
		if err != nil {
			fmt.Println(err)
			return
		}
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
	}
	ask := list.Asks[0]
	fmt.Println("question:", ask.Questions[0].ID, "recommended:", ask.Questions[0].Options[0].Value)

	send := func(method, path, body string) int {
		req, _ := http.NewRequest(method, srv.URL+"/askuser/api/asks/"+ask.ID+path, bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", list.CSRFToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	fmt.Println("answer:", send("PUT", "/answers/env", `{"selected": ["qa"]}`))
	fmt.Println("answer:", send("PUT", "/answers/env", `{"selected": ["production"]}`))
	fmt.Println("submit:", send("POST", "/submit", ``))
	fmt.Println("again:", send("POST", "/submit", ``))
	fmt.Printf("%s\n", (<-done).Result)
	// Output:
	// question: env recommended: staging
	// answer: 400
	// answer: 200
	// submit: 200
	// again: 409
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}
}
