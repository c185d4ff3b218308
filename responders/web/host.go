package web

import (
	"net"
	"net/http"
	"strings"
	"time"
)

// loopbackHosts are the host names served when Options.AllowedHosts is
// empty: names a DNS-rebinding page cannot take.
var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// allowedHosts returns the hosts to serve, by hostName, and how a refusal
// lists them.
func allowedHosts(list []string) (map[string]bool, string) {
	if len(list) == 0 {
		list = loopbackHosts
	}
	hosts := map[string]bool{}
	var shown []string
	for _, h := range list {
		name := hostName(h)
		if name == "" || hosts[name] {
			continue
		}
		hosts[name] = true
		if strings.Contains(name, ":") {
			shown = append(shown, "["+name+"]")
		} else {
			shown = append(shown, name)
		}
	}
	return hosts, strings.Join(shown, ", ")
}

// hostName returns the host of a Host header or an AllowedHosts entry in
// lower case, without its port or an IPv6 literal's brackets.
func hostName(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return strings.ToLower(h)
}

// allowHost reports whether the request's Host is one the responder
// answers for, and refuses it with 421 if not.
func (r *Responder) allowHost(w http.ResponseWriter, req *http.Request) bool {
	if r.hosts[hostName(req.Host)] {
		return true
	}
	r.logger().Debug("web: a request for another host was refused", "host", req.Host, "path", req.URL.Path)
	writeError(w, http.StatusMisdirectedRequest, errorBody{Error: "this server answers only for the hosts " + r.hostList +
		" (any port); a program that serves the card under another name lists it in web.Options.AllowedHosts"})
	return false
}

// boundBody sets the deadline by which the request's body must have
// arrived (Options.BodyTimeout), unless the request has none or the
// server's own ReadTimeout is as short. It bounds the body on every route,
// a refused request's too: the server reads what the handler left unread
// before it replies.
func (r *Responder) boundBody(w http.ResponseWriter, req *http.Request) {
	if req.Body == nil || req.Body == http.NoBody || r.bodyTimeout < 0 {
		return
	}
	if srv, _ := req.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.ReadTimeout > 0 && srv.ReadTimeout <= r.bodyTimeout {
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(r.bodyTimeout))
}
