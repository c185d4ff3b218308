package secret

import (
	"slices"
	"strings"
)

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
	KindStripe      = "a Stripe secret key"
	KindGoogle      = "a Google API key"
	KindNPM         = "an npm token"
	KindPyPI        = "a PyPI token"
	KindHuggingFace = "a Hugging Face token"
	KindVault       = "a HashiCorp Vault token"
	KindDoppler     = "a Doppler token"
)

// Lengths, in key characters (ASCII letters, digits, '-' and '_'), of what
// follows a prefix.
//
// Where a format's body is long or varies (an OpenAI key has 48 characters
// or more, a GitHub token 36, a GitLab token 20), a body counts from
// minTokenBody characters on, so that a truncated paste is caught, but only
// when it looks random (it holds a digit, or both upper- and lower-case
// letters) or holds an unbroken run of letters and digits as long as no
// word of prose is (solidRun; solidRunSK after the short prefix "sk-"). A
// word such as "sk-learn", a bare "ghp_" or "glpat-tokens-are-for-gitlab"
// in prose is not taken for a key.
//
// Where a format has a fixed length (a Google API key, an npm or Hugging
// Face token, an AWS key id), the body must have exactly that length.
const (
	minTokenBody = 16 // after sk-, sk-proj-, sk-ant-, ghp_ …, github_pat_, glpat- …, xox?-
	solidRun     = 20 // an unbroken run of letters and digits that is no word
	solidRunSK   = 32 // the same after "sk-" (a legacy OpenAI key has 48)
	minJWTPart   = 10 // first and second JWT segments; the third may be empty (alg "none")
	awsBody      = 16 // exactly 16 of A-Z and 0-9 after AKIA or ASIA
	googleBody   = 35 // exactly 35 key characters after AIza
	npmBody      = 36 // exactly 36 letters and digits after npm_
	hfBody       = 34 // exactly 34 letters after hf_
	stripeBody   = 24 // at least 24 letters and digits after sk_live_ …
	vaultBody    = 24 // at least 24 key characters after hvs. (service tokens have 90 or more)
	pypiBody     = 64 // at least 64 key characters after pypi- (real tokens have 150 or more)
	dopplerMin   = 40 // 40 to 44 letters and digits after dp.pt. …
	dopplerMax   = 44
	dopplerSlug  = 35 // at most 35 characters of environment in dp.st.<env>.
	minVaried    = 6  // distinct characters a body without digits or mixed case needs
)

// A shape is one prefixed token format: a prefix at a token boundary, and a
// check of what follows it.
type shape struct {
	prefix, kind string
	body         func(s string) bool // s is what follows the prefix
}

// shapes are the prefixed formats. Where one prefix starts another, the
// longest that matches decides (shapesByFirst is sorted so).
var shapes = []shape{
	{"sk-ant-", KindAnthropic, keyBody(solidRun)},
	{"sk-proj-", KindOpenAI, keyBody(solidRun)},
	{"sk-svcacct-", KindOpenAI, keyBody(solidRun)},
	{"sk-admin-", KindOpenAI, keyBody(solidRun)},
	{"sk-", KindOpenAI, keyBody(solidRunSK)},
	{"github_pat_", KindGitHub, keyBody(solidRun)},
	{"ghp_", KindGitHub, keyBody(solidRun)},
	{"gho_", KindGitHub, keyBody(solidRun)},
	{"ghu_", KindGitHub, keyBody(solidRun)},
	{"ghs_", KindGitHub, keyBody(solidRun)},
	{"ghr_", KindGitHub, keyBody(solidRun)},
	// GitLab: personal, deploy, runner, trigger, feed, OAuth application,
	// SCIM, CI job, incoming mail, agent and feature flag tokens.
	{"glpat-", KindGitLab, keyBody(solidRun)},
	{"gldt-", KindGitLab, keyBody(solidRun)},
	{"glrt-", KindGitLab, keyBody(solidRun)},
	{"glptt-", KindGitLab, keyBody(solidRun)},
	{"glft-", KindGitLab, keyBody(solidRun)},
	{"gloas-", KindGitLab, keyBody(solidRun)},
	{"glsoat-", KindGitLab, keyBody(solidRun)},
	{"glcbt-", KindGitLab, keyBody(solidRun)},
	{"glimt-", KindGitLab, keyBody(solidRun)},
	{"glagent-", KindGitLab, keyBody(solidRun)},
	{"glffct-", KindGitLab, keyBody(solidRun)},
	// Slack: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, …
	{"xox", KindSlack, func(s string) bool {
		return len(s) > 2 && isLower(s[0]) && s[1] == '-' && keyLike(s[2:], solidRun)
	}},
	{"AKIA", KindAWS, awsKeyID},
	{"ASIA", KindAWS, awsKeyID},
	{"eyJ", KindJWT, func(s string) bool { return jwt(s, len("eyJ")) }},
	// Stripe: secret and restricted keys, live and test mode.
	{"sk_live_", KindStripe, atLeast(stripeBody, isAlnum)},
	{"sk_test_", KindStripe, atLeast(stripeBody, isAlnum)},
	{"rk_live_", KindStripe, atLeast(stripeBody, isAlnum)},
	{"rk_test_", KindStripe, atLeast(stripeBody, isAlnum)},
	{"AIza", KindGoogle, between(googleBody, googleBody, isKeyChar)},
	{"npm_", KindNPM, between(npmBody, npmBody, isAlnum)},
	// PyPI: a macaroon in base64url; "AgE" opens every one (pypi.org's
	// start "AgEIcHlwaS5vcmc", test.pypi.org's "AgENdGVzdC5weXBpLm9yZw").
	{"pypi-AgE", KindPyPI, atLeast(pypiBody-len("AgE"), isKeyChar)},
	{"hf_", KindHuggingFace, between(hfBody, hfBody, isLetter)},
	// HashiCorp Vault: service, batch and recovery tokens.
	{"hvs.", KindVault, vaultToken},
	{"hvb.", KindVault, vaultToken},
	{"hvr.", KindVault, vaultToken},
	// Doppler: personal, CLI, service account, SCIM and audit tokens; a
	// service token may name its environment (dp.st.<env>.<token>).
	{"dp.pt.", KindDoppler, dopplerBody},
	{"dp.ct.", KindDoppler, dopplerBody},
	{"dp.sa.", KindDoppler, dopplerBody},
	{"dp.scim.", KindDoppler, dopplerBody},
	{"dp.audit.", KindDoppler, dopplerBody},
	{"dp.st.", KindDoppler, dopplerServiceToken},
}

// shapesByFirst holds the shapes by the first byte of their prefix, longest
// prefix first.
var shapesByFirst = func() (by [256][]shape) {
	for _, sh := range shapes {
		by[sh.prefix[0]] = append(by[sh.prefix[0]], sh)
	}
	for _, list := range by {
		slices.SortStableFunc(list, func(a, b shape) int { return len(b.prefix) - len(a.prefix) })
	}
	return by
}()

// Detect reports whether s contains something shaped like a credential, and
// if so which kind (one of the Kind constants). It never returns any part of s.
//
// It looks for, at a token boundary:
//   - OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-),
//     GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), GitLab (glpat-,
//     gldt-, glrt-, glptt-, glft-, gloas-, glsoat-, glcbt-, glimt-,
//     glagent-, glffct-) and Slack (xoxb-, xoxp-, and any other
//     xox<letter>-) tokens: the prefix followed by at least 16 key
//     characters (letters, digits, '-', '_') that look random, that is,
//     include a digit or both upper- and lower-case letters, or else hold
//     an unbroken run of at least 20 letters and digits (32 after "sk-")
//     made of at least 6 different characters;
//   - AWS access key ids: AKIA or ASIA followed by exactly 16 upper-case
//     letters or digits, and then no further letter or digit;
//   - Stripe secret and restricted keys: sk_live_, sk_test_, rk_live_ or
//     rk_test_ followed by at least 24 letters and digits;
//   - Google API keys: AIza followed by exactly 35 key characters;
//   - npm tokens: npm_ followed by exactly 36 letters and digits;
//   - PyPI tokens: pypi- followed by at least 64 key characters starting
//     "AgE" (the macaroon every PyPI token holds);
//   - Hugging Face tokens: hf_ followed by exactly 34 letters;
//   - HashiCorp Vault tokens: hvs., hvb. or hvr. followed by at least 24
//     key characters that look random as above;
//   - Doppler tokens: dp.pt., dp.ct., dp.sa., dp.scim., dp.audit. or
//     dp.st. (optionally followed by an environment name and '.') followed
//     by 40 to 44 letters and digits;
//   - JSON Web Tokens: three base64url segments joined by '.', the first
//     starting "eyJ", the first two at least 10 characters;
//
// and anywhere:
//   - PEM private keys: "-----BEGIN " and a label ending "PRIVATE KEY-----";
//   - URLs with a password: scheme://user:password@host with a non-empty
//     password that is not only '*' (the user may be empty, as in
//     redis://:password@host).
//
// A body of fixed length must be followed by no further letter or digit,
// and one that need not look random must use at least 6 different
// characters, so that a placeholder such as AIza followed by 35 'X' is not
// taken for a key.
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
		if k, ok := tokenAt(s[i:]); ok {
			return k, true
		}
	}
	if urlWithPassword(s) {
		return KindURLPassword, true
	}
	return "", false
}

// tokenAt checks for a prefixed token starting at a token boundary, the
// start of rest. Every scan it starts stops at the first character that is
// not a key character, at most a fixed number of characters past the
// prefix, or (for the dotted formats) after a fixed number of key-character
// runs; no boundary lies inside a run of key characters, so the scans over
// a whole string add up to linear time.
func tokenAt(rest string) (string, bool) {
	list := shapesByFirst[rest[0]]
	for i := range list {
		sh := &list[i]
		if len(rest) >= len(sh.prefix) && rest[1] == sh.prefix[1] && rest[:len(sh.prefix)] == sh.prefix {
			if sh.body(rest[len(sh.prefix):]) {
				return sh.kind, true
			}
			return "", false // the longest matching prefix decides
		}
	}
	return "", false
}

// keyBody returns the check of a variable-length body (see keyLike).
func keyBody(solid int) func(string) bool {
	return func(s string) bool { return keyLike(s, solid) }
}

// keyLike reports whether s starts with at least minTokenBody key
// characters that include a digit or both cases of letter, or else an
// unbroken run of at least solid letters and digits that is varied.
func keyLike(s string, solid int) bool {
	var n, runStart, longest, longestStart int
	var digit, upper, lower bool
	for n < len(s) && isKeyChar(s[n]) {
		c := s[n]
		digit = digit || isDigit(c)
		upper = upper || isUpper(c)
		lower = lower || isLower(c)
		n++
		if !isAlnum(c) {
			runStart = n
		} else if n-runStart > longest {
			longest, longestStart = n-runStart, runStart
		}
	}
	if n < minTokenBody {
		return false
	}
	if digit || (upper && lower) {
		return true
	}
	return longest >= solid && varied(s[longestStart:longestStart+longest])
}

// between returns the check of a body of lo to hi characters of a class,
// followed by no further letter or digit, and varied.
func between(lo, hi int, in func(byte) bool) func(string) bool {
	return func(s string) bool {
		n := 0
		for n < len(s) && n <= hi && in(s[n]) {
			n++
		}
		if n < lo || n > hi || n < len(s) && isAlnum(s[n]) {
			return false
		}
		return varied(s[:n])
	}
}

// atLeast returns the check of a body starting with at least min
// characters of a class, varied.
func atLeast(min int, in func(byte) bool) func(string) bool {
	return func(s string) bool {
		n := 0
		for n < len(s) && in(s[n]) {
			n++
		}
		return n >= min && varied(s[:n])
	}
}

// awsKeyID checks what follows AKIA or ASIA: exactly awsBody upper-case
// letters or digits, and then no further letter or digit.
func awsKeyID(s string) bool {
	n := 0
	for n < len(s) && n <= awsBody && (isUpper(s[n]) || isDigit(s[n])) {
		n++
	}
	return n == awsBody && (n == len(s) || !isAlnum(s[n]))
}

// vaultToken checks what follows hvs., hvb. or hvr.
func vaultToken(s string) bool {
	n := 0
	for n < len(s) && isKeyChar(s[n]) {
		n++
	}
	return n >= vaultBody && keyLike(s, vaultBody)
}

// dopplerBody checks what follows dp.pt. and the like.
var dopplerBody = between(dopplerMin, dopplerMax, isAlnum)

// dopplerServiceToken checks what follows dp.st.: the token, or an
// environment name, '.', and the token.
func dopplerServiceToken(s string) bool {
	n := 0
	for n < len(s) && n <= dopplerSlug && (isLower(s[n]) || isDigit(s[n]) || s[n] == '-' || s[n] == '_') {
		n++
	}
	if n >= 1 && n <= dopplerSlug && n < len(s) && s[n] == '.' {
		return dopplerBody(s[n+1:])
	}
	return dopplerBody(s)
}

// varied reports whether s uses at least minVaried different characters.
func varied(s string) bool {
	var seen [256 / 64]uint64
	distinct := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if seen[c/64]&(1<<(c%64)) == 0 {
			seen[c/64] |= 1 << (c % 64)
			if distinct++; distinct >= minVaried {
				return true
			}
		}
	}
	return false
}

// jwt reports whether s, which follows first characters of a JWT's first
// segment, continues with three base64url segments separated by dots, the
// first two at least minJWTPart long.
func jwt(s string, first int) bool {
	i := 0
	for part := 0; part < 3; part++ {
		start := i
		for i < len(s) && isKeyChar(s[i]) { // the base64url alphabet is the key characters
			i++
		}
		n := i - start
		if part == 0 {
			n += first
		}
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
