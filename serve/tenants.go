package serve

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Tenant is one agent's bearer token for the agent API, scoped to the
// sessions whose ids begin with Prefix: the token reads, waits on,
// supersedes and asks in those sessions only, so that agents sharing one
// service cannot read or end each other's asks. An empty Prefix admits
// every session, as Config.Tokens do.
type Tenant struct {
	// Prefix begins the id of every session the token reaches ("team-a/",
	// say; end it with a separator, so that it begins no other tenant's).
	Prefix string
	// Token is the bearer token.
	Token string
}

// Bounds of a token file (ParseTokens).
const (
	// minTokenChars is the least a token may hold.
	minTokenChars = 16
	// maxTenants caps the lines of tokens in a token file.
	maxTenants = 1024
)

// ParseTokens reads a token file: each line that is neither blank nor a
// comment (#) holds a token for every session, or a session prefix and a
// token, separated by spaces or tabs:
//
//	# the operator's tools, for every session
//	3f7c0c1b9d0e4a5f8a1b2c3d4e5f6a7b
//	team-a/ 9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d
//	team-b/ 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d
//
// A file of one token (the file askuser serve makes) is a token for every
// session. A token holds at least 16 characters and appears once; no
// prefix begins another (a tenant of "team" would reach "team-b/"'s
// sessions). Its errors name the line, never a token.
func ParseTokens(text string) ([]Tenant, error) {
	var ts []Tenant
	line := map[string]int{} // a token, or a prefix, to its line
	for i, l := range strings.Split(text, "\n") {
		n := i + 1
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		var t Tenant
		switch len(f) {
		case 1:
			t.Token = f[0]
		case 2:
			t.Prefix, t.Token = f[0], f[1]
		default:
			return nil, fmt.Errorf("line %d has %d fields; a line holds a token (for every session), or a session prefix and a token", n, len(f))
		}
		if err := checkPrefix(t.Prefix); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if utf8.RuneCountInString(t.Token) < minTokenChars {
			return nil, fmt.Errorf("line %d: the token is shorter than %d characters; make it longer (32 random hex digits, say)", n, minTokenChars)
		}
		if m, ok := line["\x00"+t.Token]; ok {
			return nil, fmt.Errorf("line %d holds the token of line %d; give each tenant a token of its own", n, m)
		}
		line["\x00"+t.Token] = n
		if t.Prefix != "" {
			for _, o := range ts {
				if o.Prefix != "" && (strings.HasPrefix(o.Prefix, t.Prefix) || strings.HasPrefix(t.Prefix, o.Prefix)) {
					return nil, fmt.Errorf("the prefix %q of line %d and %q of line %d overlap: one tenant would reach the other's sessions; end each with a separator (team-a/, team-b/)",
						t.Prefix, n, o.Prefix, line[o.Prefix])
				}
			}
			line[t.Prefix] = n
		}
		if ts = append(ts, t); len(ts) > maxTenants {
			return nil, fmt.Errorf("the file holds more than %d tokens", maxTenants)
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("the file holds no token; give a token (for every session) or lines of a session prefix and a token")
	}
	return ts, nil
}

// checkPrefix refuses a session prefix no session id could begin with as
// meant: too long, not UTF-8, or with a control character.
func checkPrefix(p string) error {
	switch {
	case len(p) > maxIDBytes:
		return fmt.Errorf("the prefix is %d bytes long; at most %d are allowed", len(p), maxIDBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("the prefix is not valid UTF-8")
	case strings.ContainsFunc(p, unicode.IsControl):
		return fmt.Errorf("the prefix holds a control character")
	}
	return nil
}

// A tenant is a bearer token and the sessions it reaches.
type tenant struct {
	token  []byte
	prefix string // "": every session
}

// admits reports whether the tenant reaches session.
func (t *tenant) admits(session string) bool { return strings.HasPrefix(session, t.prefix) }

// tenants makes the Handler's tenants from Config.Tokens (every session)
// and Config.Tenants; an empty token admits nobody and is dropped.
func tenants(c Config) []*tenant {
	var ts []*tenant
	for _, t := range c.Tokens {
		if t != "" {
			ts = append(ts, &tenant{token: []byte(t)})
		}
	}
	for _, t := range c.Tenants {
		if t.Token != "" {
			ts = append(ts, &tenant{token: []byte(t.Token), prefix: t.Prefix})
		}
	}
	return ts
}

// authenticate returns the tenant whose token the Authorization header
// carries, or nil. It compares with every token in constant time.
func (s *Handler) authenticate(auth string) *tenant {
	if len(auth) <= 7 || !strings.EqualFold(auth[:7], "bearer ") {
		return nil
	}
	got := []byte(strings.TrimSpace(auth[7:]))
	var found *tenant
	for _, t := range s.tenants {
		if subtle.ConstantTimeCompare(got, t.token) == 1 {
			found = t
		}
	}
	return found
}

// tenantKey keys the request's tenant in its context.
type tenantKey struct{}

// withTenant returns r with its tenant, for the routes behind bearer.
func withTenant(r *http.Request, t *tenant) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), tenantKey{}, t))
}

// tenantOf returns the tenant that bearer admitted r as, or nil.
func tenantOf(r *http.Request) *tenant {
	t, _ := r.Context().Value(tenantKey{}).(*tenant)
	return t
}

// admitSession reports whether the request's bearer token reaches
// session; if not, it writes the refusal (403), which names the token's own
// prefix and no other. Every route of the agent API that names a session
// calls it before it reads or changes anything.
func (s *Handler) admitSession(w http.ResponseWriter, r *http.Request, session string) bool {
	t := tenantOf(r)
	if t != nil && t.admits(session) {
		return true
	}
	msg := "this bearer token reaches no session"
	if t != nil {
		msg = fmt.Sprintf("this bearer token reaches only the sessions whose ids begin with %q; session %q is not one of them: use a session id with that prefix, or the token of the tenant the session belongs to", t.prefix, session)
	}
	apiError(w, http.StatusForbidden, msg)
	return false
}

// admitAll reports whether the request's bearer token reaches every
// session (a token of Config.Tokens, or a tenant without a prefix); if not,
// it writes the refusal (403). A route that is not about one session (the
// service's own state) calls it.
func (s *Handler) admitAll(w http.ResponseWriter, r *http.Request) bool {
	if t := tenantOf(r); t != nil && t.prefix == "" {
		return true
	}
	apiError(w, http.StatusForbidden, "this route needs a bearer token for every session; this one is scoped to a session prefix")
	return false
}
