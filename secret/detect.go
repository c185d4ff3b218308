package secret

import "strings"

// The kinds Detect reports. Each is a noun phrase a person can read in a
// sentence such as "This looks like a GitHub token; it will not be passed on."
const (
	KindOpenAI      = "an OpenAI API key"
	KindAnthropic   = "an Anthropic API key"
	KindGitHub      = "a GitHub token"
	KindGitLab      = "a GitLab token"
	KindSlack       = "a Slack token"
	KindAWS         = "an AWS access key id"
	KindPEM         = "a PEM private key"
	KindJWT         = "a JSON Web Token"
	KindURLPassword = "a URL with a password"
)

// Minimum lengths, in key characters (ASCII letters, digits, '-' and '_'),
// of what follows a prefix. Real tokens are longer (an OpenAI key has 48 or
// more, a GitHub token 36, a GitLab token 20); the minimums are low enough to
// catch a truncated paste and high enough that a word such as "sk-learn" or a
// bare "ghp_" in prose is not taken for a key.
const (
	minTokenBody = 16 // after sk-, sk-proj-, sk-ant-, ghp_ …, github_pat_, glpat-, xox?-
	minJWTPart   = 10 // first and second JWT segments; the third may be empty (alg "none")
	awsBody      = 16 // exactly 16 of A-Z and 0-9 after AKIA or ASIA
)

// prefixes are tried in order at every token boundary, longest first where
// one prefix starts another.
var prefixes = []struct {
	prefix, kind string
}{
	{"sk-ant-", KindAnthropic},
	{"sk-proj-", KindOpenAI},
	{"sk-", KindOpenAI},
	{"github_pat_", KindGitHub},
	{"ghp_", KindGitHub},
	{"gho_", KindGitHub},
	{"ghu_", KindGitHub},
	{"ghs_", KindGitHub},
	{"ghr_", KindGitHub},
	{"glpat-", KindGitLab},
}

// Detect reports whether s contains something shaped like a credential, and
// if so which kind (one of the Kind constants). It never returns any part of s.
//
// It looks for:
//   - OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), GitHub (ghp_, gho_, ghu_,
//     ghs_, ghr_, github_pat_), GitLab (glpat-) and Slack (xoxb-, xoxp-, and
//     any other xox<letter>-) tokens: the prefix at a token boundary followed
//     by at least 16 key characters (letters, digits, '-', '_') that look
//     random, that is, include a digit or both upper- and lower-case letters;
//   - AWS access key ids: AKIA or ASIA at a token boundary followed by exactly
//     16 upper-case letters or digits, and then no further letter or digit;
//   - PEM private keys: "-----BEGIN " and a label ending "PRIVATE KEY-----";
//   - JSON Web Tokens: at a token boundary, three base64url segments joined
//     by '.', the first starting "eyJ", the first two at least 10 characters;
//   - URLs with a password: scheme://user:password@host with a non-empty
//     password that is not only '*' (the user may be empty, as in
//     redis://:password@host).
//
// A token boundary is the start of s or any position after a character that
// is not an ASCII letter, digit, '-' or '_': "task-…" and "mask-…" do not
// contain "sk-". Prefixes are case-sensitive, as the real tokens are.
//
// Detect runs in time linear in len(s) and does not allocate.
func Detect(s string) (kind string, found bool) {
	if i := strings.Index(s, "-----BEGIN "); i >= 0 && pemAt(s, i) {
		return KindPEM, true
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && isKeyChar(s[i-1]) {
			continue
		}
		if k, ok := tokenAt(s, i); ok {
			return k, true
		}
	}
	if urlWithPassword(s) {
		return KindURLPassword, true
	}
	return "", false
}

// tokenAt checks for a prefixed token, an AWS key id or a JWT starting at the
// token boundary i. Every scan it starts stops at the first character that is
// not a key character, and no boundary lies inside such a run, so the scans
// over a whole string add up to linear time.
func tokenAt(s string, i int) (string, bool) {
	rest := s[i:]
	switch rest[0] {
	case 's', 'g':
		for _, p := range prefixes {
			if strings.HasPrefix(rest, p.prefix) {
				if randomBody(rest[len(p.prefix):]) {
					return p.kind, true
				}
				return "", false // the longest matching prefix decides
			}
		}
	case 'x':
		// Slack: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, …
		if len(rest) > 5 && strings.HasPrefix(rest, "xox") && isLower(rest[3]) && rest[4] == '-' {
			if randomBody(rest[5:]) {
				return KindSlack, true
			}
		}
	case 'A':
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			n := 0
			for n < len(rest)-4 && (isUpper(rest[4+n]) || isDigit(rest[4+n])) {
				n++
			}
			end := 4 + n
			if n == awsBody && (end == len(rest) || !isAlnum(rest[end])) {
				return KindAWS, true
			}
		}
	case 'e':
		if strings.HasPrefix(rest, "eyJ") && jwt(rest) {
			return KindJWT, true
		}
	}
	return "", false
}

// randomBody reports whether s starts with at least minTokenBody key
// characters that include a digit or both cases of letter.
func randomBody(s string) bool {
	var n int
	var digit, upper, lower bool
	for n < len(s) && isKeyChar(s[n]) {
		c := s[n]
		digit = digit || isDigit(c)
		upper = upper || isUpper(c)
		lower = lower || isLower(c)
		n++
	}
	return n >= minTokenBody && (digit || (upper && lower))
}

// jwt reports whether s starts with three base64url segments separated by
// dots, the first two at least minJWTPart long.
func jwt(s string) bool {
	i := 0
	for part := 0; part < 3; part++ {
		start := i
		for i < len(s) && isKeyChar(s[i]) { // the base64url alphabet is the key characters
			i++
		}
		n := i - start
		if part < 2 {
			if n < minJWTPart || i >= len(s) || s[i] != '.' {
				return false
			}
			i++ // the dot
		}
	}
	return true
}

// pemAt reports whether the "-----BEGIN " at s[i:] opens a private key.
func pemAt(s string, i int) bool {
	for {
		rest := s[i+len("-----BEGIN "):]
		// The label is upper-case words: "PRIVATE KEY", "RSA PRIVATE KEY",
		// "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY", …
		n := 0
		for n < len(rest) && n < 64 && (isUpper(rest[n]) || isDigit(rest[n]) || rest[n] == ' ') {
			n++
		}
		if strings.HasSuffix(rest[:n], "PRIVATE KEY") && strings.HasPrefix(rest[n:], "-----") {
			return true
		}
		j := strings.Index(rest, "-----BEGIN ")
		if j < 0 {
			return false
		}
		i += len("-----BEGIN ") + j
	}
}

// urlWithPassword reports whether s holds scheme://user:password@host. Each
// scan runs between one "://" and the next '/', so the whole is linear.
func urlWithPassword(s string) bool {
	from := 0
	for {
		j := strings.Index(s[from:], "://")
		if j < 0 {
			return false
		}
		at := from + j
		from = at + 3
		// The scheme: a letter, then letters, digits, '+', '-', '.'.
		k := at
		for k > 0 && isSchemeChar(s[k-1]) {
			k--
		}
		for k < at && !isLetter(s[k]) { // a scheme starts with a letter
			k++
		}
		if k == at {
			continue
		}
		// The authority's userinfo runs up to '@', ending at any of "/?#",
		// white space, quotes or angle brackets.
		rest := s[from:]
		end := 0
		for end < len(rest) && !endsAuthority(rest[end]) && rest[end] != '@' {
			end++
		}
		if end == len(rest) || rest[end] != '@' {
			continue
		}
		userinfo := rest[:end]
		c := strings.IndexByte(userinfo, ':')
		if c < 0 {
			continue
		}
		password := userinfo[c+1:]
		if strings.Trim(password, "*") == "" {
			continue
		}
		host := rest[end+1:]
		if host == "" || !(isAlnum(host[0]) || host[0] == '[') {
			continue
		}
		return true
	}
}

func endsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

func isSchemeChar(c byte) bool { return isAlnum(c) || c == '+' || c == '-' || c == '.' }
func isKeyChar(c byte) bool    { return isAlnum(c) || c == '-' || c == '_' }
func isAlnum(c byte) bool      { return isLetter(c) || isDigit(c) }
func isLetter(c byte) bool     { return isUpper(c) || isLower(c) }
func isUpper(c byte) bool      { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool      { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
