package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	vErrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/auto"
)

// The OpenAPI description (openapi.json) is checked against the service
// itself: every request the API tests send and every response they get
// passes through validated, which fails the test on a response the
// description does not allow, or on a request the description refuses
// that the service did not refuse.

var (
	apiValidatorOnce sync.Once
	apiValidator     validator.Validator
	apiValidatorErr  error
	apiValidatorMu   sync.Mutex // the validator is used by one request at a time
)

// openAPIValidator returns the validator of openapi.json, made once.
func openAPIValidator(t testing.TB) validator.Validator {
	t.Helper()
	apiValidatorOnce.Do(func() {
		doc, err := libopenapi.NewDocument(openAPIDoc)
		if err != nil {
			apiValidatorErr = err
			return
		}
		v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
		if len(errs) > 0 {
			apiValidatorErr = fmt.Errorf("%v", errs)
			return
		}
		apiValidator = v
	})
	if apiValidatorErr != nil {
		t.Fatalf("openapi.json: %v", apiValidatorErr)
	}
	return apiValidator
}

// described reports whether a path is one openapi.json describes: the API
// under /v1/ and the probes (the card's routes are documented in
// docs/web-card.md).
func described(path string) bool {
	return strings.HasPrefix(path, "/v1/") || path == "/healthz" || path == "/readyz"
}

// validated wraps a Handler so that each request to a described path and
// its response are checked against openapi.json. A request the
// description refuses must be refused (4xx); every response must be one
// the description allows for its operation and status.
func validated(t testing.TB, h http.Handler) http.Handler {
	v := openAPIValidator(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !described(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the request body: %v", err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &capture{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		if !rec.wrote {
			return // the caller went away, and nothing was answered
		}

		req := r.Clone(r.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		if req.Method == http.MethodPost && req.Header.Get("Content-Type") == "" {
			// The service reads a body as JSON whatever its Content-Type
			// (curl -d sends a form's), as the description says.
			req.Header.Set("Content-Type", "application/json")
		}
		res := &http.Response{StatusCode: rec.code, Header: rec.Header().Clone(), Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), Request: req}
		apiValidatorMu.Lock()
		reqOK, reqErrs := v.ValidateHttpRequest(req)
		req.Body = io.NopCloser(bytes.NewReader(body))
		resOK, resErrs := v.ValidateHttpResponse(req, res)
		apiValidatorMu.Unlock()
		if !reqOK && pathMissing(reqErrs) {
			return // a route the API does not have (its 404 says so)
		}
		if !reqOK && (rec.code < 400 || rec.code >= 500) {
			t.Errorf("openapi.json refuses %s %s (%s), but the service answered %d:\n%s", r.Method, r.URL, body, rec.code, show(reqErrs))
		}
		if !resOK {
			t.Errorf("openapi.json does not allow the response to %s %s: %d %s\n%s", r.Method, r.URL, rec.code, rec.body.Bytes(), show(resErrs))
		}
	})
}

func pathMissing(errs []*vErrors.ValidationError) bool {
	return slices.ContainsFunc(errs, func(e *vErrors.ValidationError) bool { return e.IsPathMissingError() || e.IsOperationMissingError() })
}

func show(errs []*vErrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s: %s\n", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "    %s at %s\n", s.Reason, s.FieldPath)
		}
	}
	return b.String()
}

// capture passes a response on and keeps its status and body.
type capture struct {
	http.ResponseWriter
	code  int
	wrote bool
	body  bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if !c.wrote {
		c.code, c.wrote = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	c.wrote = true
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (a waiting
// request lifts its deadlines through it).
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// TestOpenAPIDocument: openapi.json is a valid OpenAPI 3.1 document, one
// JSON object with no servers (they are added as it is served), and it
// describes every route of the Handler.
func TestOpenAPIDocument(t *testing.T) {
	v := openAPIValidator(t)
	if ok, errs := v.ValidateDocument(); !ok {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 document:\n%s", show(errs))
	}
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Servers json.RawMessage            `json:"servers"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if openAPIDoc[0] != '{' || json.Unmarshal(openAPIDoc, &doc) != nil || doc.Servers != nil || !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi.json must be one JSON object starting with {, of OpenAPI 3.1, without servers")
	}
	var got []string
	for p := range doc.Paths {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{"/healthz", "/readyz", "/v1/asks", "/v1/calls", "/v1/openapi.json", "/v1/sessions/{session}/calls/{tool_call_id}",
		"/v1/sessions/{session}/secrets/{name}", "/v1/sessions/{session}/supersede"}
	if !slices.Equal(got, want) {
		t.Errorf("openapi.json describes %v; want the Handler's routes %v", got, want)
	}
}

// TestOpenAPIServed: GET /v1/openapi.json, without a token, is the
// description with the service's URL as its server.
func TestOpenAPIServed(t *testing.T) {
	rp := newReplica(t, nil, nil)
	a := newAgentClient(t, "")
	r := a.do("GET", rp.base+"/v1/openapi.json", "", map[string]string{"Authorization": ""})
	var doc map[string]json.RawMessage
	if r.code != 200 || r.hdr.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(r.body), &doc) != nil {
		t.Fatalf("GET /v1/openapi.json: %d %v %.300s", r.code, r.hdr, r.body)
	}
	if got, want := string(doc["servers"]), `[{"url":"`+rp.base+`"}]`; got != want {
		t.Errorf("servers %s; want %s", got, want)
	}
	var file map[string]json.RawMessage
	_ = json.Unmarshal(openAPIDoc, &file)
	delete(doc, "servers")
	if len(doc) != len(file) || string(doc["paths"]) != string(file["paths"]) {
		t.Errorf("the document served is not openapi.json with servers")
	}
	h := NewHandler(Config{Orchestrator: &askuser.Orchestrator{Responder: auto.New()}, BaseURL: "https://platform.example/askuser/"})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/v1/openapi.json", nil)
	req.Host = "localhost"
	h.ServeHTTP(rec, req)
	if !strings.HasPrefix(rec.Body.String(), `{"servers":[{"url":"https://platform.example/askuser"}],`) {
		t.Errorf("under BaseURL: %.200s; want BaseURL as the server", rec.Body)
	}
}
