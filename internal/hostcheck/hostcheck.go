// Package hostcheck holds what the command's servers and package serve
// share to guard their HTTP endpoints: the Host and Origin check against
// DNS rebinding, a redirect target that stays on the server, and how a
// size cap is written for a person.
package hostcheck

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Check refuses a request for a Host the server does not answer for
// (421, as the web card does), and one whose Origin names another host
// (403): a DNS-rebinding page, or any other site in the person's browser.
type Check struct {
	hosts map[string]bool
	list  string
}

// New returns a Check for the allowed hosts (host names or IP literals,
// with or without a port); none allows the loopback names.
func New(allowed []string) Check {
	if len(allowed) == 0 {
		allowed = []string{"localhost", "127.0.0.1", "[::1]"}
	}
	h := Check{hosts: map[string]bool{}}
	var shown []string
	for _, a := range allowed {
		if n := HostOnly(a); n != "" && !h.hosts[n] {
			h.hosts[n] = true
			shown = append(shown, a)
		}
	}
	h.list = strings.Join(shown, ", ")
	return h
}

// HostOnly returns a Host header's or an allowed entry's host, lower case,
// without its port or an IPv6 literal's brackets.
func HostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return strings.ToLower(h)
}

// Wrap returns next behind the check.
func (h Check) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hosts[HostOnly(r.Host)] {
			http.Error(w, "this server answers only for the hosts "+h.list+" (any port)", http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !h.hosts[HostOnly(u.Host)] {
				http.Error(w, "requests from another origin are not allowed", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Plain reports whether h is a host name or an IP address literal: no
// user info, path or query to smuggle into a URL.
func Plain(h string) bool {
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '_') {
			return false
		}
	}
	return h != ""
}

// LocalPath returns a redirect target that can only be a path on this
// server: one leading slash, never "//" or "/\", which a browser reads as
// another host. A backslash in an escaped path is already %5C.
func LocalPath(escapedPath, query string) string {
	p := "/" + strings.TrimLeft(escapedPath, `/\`)
	if query != "" {
		p += "?" + query
	}
	return p
}

// Bytes writes a cap in bytes for a person: 64 KiB, 1 MiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
