package serve

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of the service's HTTP API:
// the agent API, the admin API and the probes. It names no server; one is
// added as it is served (see openAPI).
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI serves GET /v1/openapi.json: the description, with the URL the
// service is reached at as its one server. It needs no token: it
// describes the API and holds nothing of the asks.
func (s *Handler) openAPI(w http.ResponseWriter, r *http.Request) {
	servers, _ := json.Marshal([]struct {
		URL string `json:"url"`
	}{{s.base(r)}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	// The document is one object without "servers": it goes first.
	_, _ = w.Write([]byte(`{"servers":`))
	_, _ = w.Write(servers)
	_, _ = w.Write([]byte(","))
	_, _ = w.Write(openAPIDoc[1:])
}
