package secret

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kinds lists every kind Detect can report.
var kinds = []string{
	KindOpenAI, KindAnthropic, KindGitHub, KindGitLab, KindSlack,
	KindAWS, KindPEM, KindJWT, KindURLPassword,
	KindStripe, KindGoogle, KindNPM, KindPyPI, KindHuggingFace, KindVault, KindDoppler,
}

// Fake credentials, assembled so that no whole token sits in the source.
var (
	body20   = "A1b2C3d4E5f6G7h8I9j0"                    // 20 random-looking key characters
	body16   = "A1b2C3d4E5f6G7h8"                        // exactly the minimum
	body15   = "A1b2C3d4E5f6G7h"                         // one short
	openai   = "sk-" + "proj-" + body20 + body20         // an OpenAI project key
	legacy   = "sk-" + body20 + body20 + "abcdefgh"      // a 48-character legacy OpenAI key
	anthro   = "sk-" + "ant-" + "api03-" + body20        // an Anthropic key
	ghp      = "ghp" + "_" + body20 + "0123456789abcdef" // a classic GitHub PAT
	pat      = "github" + "_pat_" + body20 + "_" + body20
	glpat    = "glpat" + "-" + body20
	slack    = "xoxb" + "-" + "123456789012-1234567890123-" + body20
	aws      = "AKIA" + "IOSFODNN7EXAMPLE"
	awsTemp  = "ASIA" + "Y34FZKBOKMUTVV7A"
	jwtToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." +
		"eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0" + "." +
		"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pem = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
)

func TestDetect(t *testing.T) {
	type result struct {
		Kind  string
		Found bool
	}
	yes := func(kind string) result { return result{kind, true} }
	no := result{}
	tests := []struct {
		name string
		in   string
		want result
	}{
		// Positives.
		{"openai project key", openai, yes(KindOpenAI)},
		{"openai legacy key", legacy, yes(KindOpenAI)},
		{"openai key in a sentence", "my key is " + legacy + ", thanks", yes(KindOpenAI)},
		{"openai key after =", "OPENAI_API_KEY=" + legacy, yes(KindOpenAI)},
		{"openai key in quotes", `"` + openai + `"`, yes(KindOpenAI)},
		{"openai key at the minimum", "sk-" + body16, yes(KindOpenAI)},
		{"openai all digits", "sk-" + "1234567890123456", yes(KindOpenAI)},
		{"anthropic key", anthro, yes(KindAnthropic)},
		{"anthropic key after newline", "here:\n" + anthro, yes(KindAnthropic)},
		{"github classic", ghp, yes(KindGitHub)},
		{"github oauth", "gho" + "_" + body20, yes(KindGitHub)},
		{"github user-to-server", "ghu" + "_" + body20, yes(KindGitHub)},
		{"github server-to-server", "ghs" + "_" + body20, yes(KindGitHub)},
		{"github refresh", "ghr" + "_" + body20, yes(KindGitHub)},
		{"github fine-grained", pat, yes(KindGitHub)},
		{"github token in a header", "Authorization: token " + ghp, yes(KindGitHub)},
		{"gitlab", glpat, yes(KindGitLab)},
		{"gitlab in parentheses", "(" + glpat + ")", yes(KindGitLab)},
		{"slack bot", slack, yes(KindSlack)},
		{"slack user", "xoxp" + "-" + body20, yes(KindSlack)},
		{"slack app", "xoxa" + "-" + body20, yes(KindSlack)},
		{"slack refresh", "xoxr" + "-" + body20, yes(KindSlack)},
		{"slack legacy", "xoxs" + "-" + body20, yes(KindSlack)},
		{"slack rotating", "xoxe.xoxp" + "-1-" + body20, yes(KindSlack)},
		{"aws access key id", aws, yes(KindAWS)},
		{"aws temporary key id", awsTemp, yes(KindAWS)},
		{"aws key id in config", "aws_access_key_id = " + aws + "\n", yes(KindAWS)},
		{"aws key id before a comma", aws + ", region us-east-1", yes(KindAWS)},
		{"pem rsa", pem, yes(KindPEM)},
		{"pem pkcs8", "-----BEGIN " + "PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI", yes(KindPEM)},
		{"pem openssh", "x -----BEGIN " + "OPENSSH PRIVATE KEY----- y", yes(KindPEM)},
		{"pem encrypted", "-----BEGIN " + "ENCRYPTED PRIVATE KEY-----", yes(KindPEM)},
		{"pem ec after a certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN " + "EC PRIVATE KEY-----", yes(KindPEM)},
		{"jwt", jwtToken, yes(KindJWT)},
		{"jwt bearer", "Bearer " + jwtToken, yes(KindJWT)},
		{"jwt unsigned", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.", yes(KindJWT)},
		{"postgres url", "postgres://admin:hunter22@db.internal:5432/app", yes(KindURLPassword)},
		{"https url", "see https://bob:s3cret@example.com/x", yes(KindURLPassword)},
		{"redis empty user", "redis://:p4ss@cache:6379", yes(KindURLPassword)},
		{"url in angle brackets", "<amqp://guest:guest@rabbit/>", yes(KindURLPassword)},
		{"url with ipv6 host", "mysql://root:pw@[::1]:3306/db", yes(KindURLPassword)},
		{"url scheme with plus", "git+ssh://me:pw@host/repo", yes(KindURLPassword)},

		// Negatives: ordinary prose and code.
		{"empty", "", no},
		{"prose", "Please use the staging database and deploy on Friday.", no},
		{"sk-learn", "use sk-learn for the model", no},
		{"sk-learn long", "sk-learn-compatible-estimators", no},
		{"bare sk-", "the prefix sk- marks OpenAI keys", no},
		{"short sk-", "sk-" + body15, no},
		{"task-", "task-" + body20, no},
		{"mask-", "mask-" + body20, no},
		{"ask-", "ask-" + body20, no},
		{"sk- inside an identifier", "risk_sk-" + body20, no},
		{"sk- after a dash", "pre-sk-" + body20, no},
		{"upper-case SK-", "SK-" + body20, no},
		{"bare ghp_", "ghp_ alone", no},
		{"ghp_ short", "ghp" + "_" + body15, no},
		{"ghp_ lower-case words", "ghp_prefix_marks_classic_tokens", no},
		{"github_pat_ words", "github_pat_is_the_new_format", no},
		{"glpat- words", "glpat-tokens-are-for-gitlab", no},
		{"slack words", "xoxb-tokens-belong-to-bots-only", no},
		{"xox without letter", "xox1-" + body20, no},
		{"aws too short", "AKIA" + "IOSFODNN7EXAMP", no},
		{"aws too long", "AKIA" + "IOSFODNN7EXAMPLE1", no},
		{"aws lower-case", "AKIA" + "iosfodnn7example", no},
		{"aws inside a word", "XAKIA" + "IOSFODNN7EXAMPLE", no},
		{"aws word", "AKIAS are birds", no},
		{"pem certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", no},
		{"pem public key", "-----BEGIN PUBLIC KEY-----", no},
		{"begin without dashes", "BEGIN RSA PRIVATE KEY", no},
		{"jwt header only", "eyJhbGciOiJIUzI1NiJ9", no},
		{"jwt short segments", "eyJa.eyJb.c", no},
		{"jwt inside a word", "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc", no},
		{"dotted identifier", "config.eyJump.value", no},
		{"url without password", "https://example.com/path?q=1", no},
		{"url with user only", "ssh://git@github.com/org/repo", no},
		{"url with port", "http://localhost:8080/api", no},
		{"url with empty password", "ftp://anonymous:@ftp.example.com", no},
		{"url with masked password", "postgres://admin:****@db/app", no},
		{"url with @ in the path", "https://example.com/users/@bob:x", no},
		{"url with @ in the query", "https://example.com/?a=b:c@d", no},
		{"url missing host", "postgres://admin:pw@", no},
		{"url scheme not a letter", "1://a:b@c", no},
		{"email address", "mail bob:x@example.com", no},
		{"go identifier", "func skipWhitespace(s string) string { return s }", no},
		{"uuid", "id 123e4567-e89b-12d3-a456-426614174000", no},
		{"hex digest", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", no},
		{"kebab case", "use the sk-flag-for-something option", no},
		{"non-ascii", "ключ sk-ключ-ключ-ключ-ключ", no},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, found := Detect(tt.in)
			if diff := cmp.Diff(tt.want, result{kind, found}); diff != "" {
				t.Errorf("Detect(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// adversarialSize is the length of each adversarial input.
const adversarialSize = 1 << 20

// adversarialInputs are inputs built to make a backtracking matcher or a
// careless scanner quadratic, each about adversarialSize bytes, none
// holding a credential.
func adversarialInputs() map[string]string {
	const n = adversarialSize
	return map[string]string{
		"boundaries":     strings.Repeat(".s", n/2),
		"sk- prefixes":   strings.Repeat(" sk-", n/4),
		"jwt segments":   strings.Repeat("eyJ.", n/4),
		"jwt long":       strings.Repeat("eyJaaaaaaaaaaa.x.", n/17),
		"url schemes":    strings.Repeat("a://", n/4),
		"url userinfo":   "a://" + strings.Repeat("b:", n/2),
		"scheme chars":   strings.Repeat("a", n) + "://",
		"pem begins":     strings.Repeat("-----BEGIN ", n/11),
		"pem labels":     strings.Repeat("-----BEGIN "+strings.Repeat("A", 60), n/71),
		"aws":            strings.Repeat("AKIA ", n/5),
		"slack":          strings.Repeat("xoxb-", n/5),
		"key characters": strings.Repeat("a", n),
		"hf_ prefixes":   strings.Repeat(" hf_", n/4),
		"hf_ letters":    "hf_" + strings.Repeat("a", n),
		"npm_ prefixes":  strings.Repeat(".npm_", n/5),
		"google":         strings.Repeat("AIza ", n/5),
		"pypi":           strings.Repeat("pypi-AgE.", n/9),
		"vault dots":     strings.Repeat("hvs.", n/4),
		"vault long":     "hvs." + strings.Repeat("ab", n/2),
		"doppler dots":   strings.Repeat("dp.st.", n/6),
		"doppler slugs":  strings.Repeat("dp.st.aaaa.", n/11),
		"stripe":         strings.Repeat("sk_live_", n/8),
		"solid runs":     strings.Repeat("glpat-abababababababababab ", n/27),
	}
}

// TestDetectAdversarial: the adversarial inputs hold no credential, and
// Detect finds none in them. How fast it gets there is
// BenchmarkDetectAdversarial's to measure (BENCHMARKS.md), against ordinary
// text of the same size: a unit test asserts no time.
func TestDetectAdversarial(t *testing.T) {
	for name, in := range adversarialInputs() {
		if kind, found := Detect(in); found {
			t.Errorf("%s: Detect found %q; want nothing", name, kind)
		}
	}
}

// BenchmarkDetectAdversarial measures Detect on each adversarial input,
// beside its baseline, ordinary prose of the same size: in linear time,
// every input's MB/s is of the baseline's order.
func BenchmarkDetectAdversarial(b *testing.B) {
	prose := "Please deploy the staging build to eu-west-1 after the task-runner finishes. "
	inputs := adversarialInputs()
	inputs["baseline: prose"] = strings.Repeat(prose, adversarialSize/len(prose))
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		in := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Detect(in)
			}
		})
	}
}

func TestDetectAllocs(t *testing.T) {
	in := "nothing to see here, postgres://u@h/db, eyJabc, sk-short " + strings.Repeat("x", 100)
	if n := testing.AllocsPerRun(100, func() { Detect(in) }); n != 0 {
		t.Errorf("Detect allocated %v times per call; want 0", n)
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"", "sk-", openai, anthro, ghp, pat, glpat, slack, aws, awsTemp, jwtToken, pem,
		"postgres://a:b@c", "task-" + body20, "-----BEGIN ", "eyJ.eyJ.", "a://b:c@",
		glpatLower, legacyLower, stripe, google, npmToken, pypiToken, hfToken, fakeVault, fakeDoppler,
		dopplerService, "dp.st.dev.", "hvs.", "hf_", "npm_", "AIza", "pypi-AgE", "sk_live_",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, found := Detect(s)
		if found && !slices.Contains(kinds, kind) {
			t.Fatalf("Detect(%q) = %q, which is not a known kind", s, kind)
		}
		if !found && kind != "" {
			t.Fatalf("Detect(%q) = %q, false; want an empty kind when nothing is found", s, kind)
		}
		// Surrounding a string with spaces never hides a credential in it.
		if found {
			if k2, f2 := Detect(" " + s + " "); !f2 {
				t.Fatalf("Detect(%q) found %q but not once padded with spaces (got %q)", s, kind, k2)
			}
		}
	})
}

func BenchmarkDetect(b *testing.B) {
	in := strings.Repeat("Please deploy the staging build to eu-west-1 after the task-runner finishes. ", 20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Detect(in)
	}
}

// cycle returns n characters taken in turn from alphabet: a fake body of
// any length, varied enough to pass for a key.
func cycle(alphabet string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(alphabet[i%len(alphabet)])
	}
	return b.String()
}

const (
	lower   = "abcdefghijklmnopqrstuvwxyz"
	letters = "aBcDeFgHiJkLmNoPqRsTuVwXyZ"
	alnum   = "A1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvWxYz"
	b64url  = "Ab3-Cd5_Ef7Gh9Ij0Kl2Mn4Op6Qr8St"
)

// Fakes of the shapes added after the first set, assembled so that no whole
// token sits in the source.
var (
	glpatLower     = "glpat" + "-" + "abcdefghijklmnopqrst" // a GitLab token, lower-case body
	legacyLower    = "sk-" + cycle(lower, 38)               // the legacy OpenAI shape, lower-case
	projLower      = "sk-" + "proj-" + cycle(lower, 48)     // an OpenAI project key, lower-case
	patLower       = "github" + "_pat_" + cycle(lower, 22) + "_" + cycle(lower, 59)
	stripe         = "sk" + "_live_" + cycle(alnum, 24)      // a Stripe secret key
	google         = "AI" + "za" + "SyD" + cycle(b64url, 32) // a Google API key: 35 after AIza
	npmToken       = "npm" + "_" + cycle(alnum, 36)          // an npm token
	pypiToken      = "pypi" + "-" + "AgEIcHlwaS5vcmc" + cycle(b64url, 150)
	hfToken        = "hf" + "_" + cycle(letters, 34)           // a Hugging Face token
	fakeVault      = "hvs" + "." + "CAESI" + cycle(b64url, 90) // a Vault service token
	fakeDoppler    = "dp" + ".pt." + cycle(alnum, 43)          // a Doppler personal token
	dopplerService = "dp" + ".st." + "prd." + cycle(alnum, 40) // a Doppler service token with its environment
)

// TestDetectMoreShapes checks the credential shapes Detect learned after the
// first set (docs/ask_user.md lists them all), and bodies that no longer
// need to look random when they are long and unbroken, against tricky
// ordinary text.
func TestDetectMoreShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" when nothing is to be found
	}{
		// GitLab.
		{"gitlab lower-case body", glpatLower, KindGitLab},
		{"gitlab routable", "glpat" + "-" + cycle(alnum, 27) + ".01.0" + cycle(lower, 8), KindGitLab},
		{"gitlab deploy token", "gldt" + "-" + cycle(alnum, 20), KindGitLab},
		{"gitlab runner token", "glrt" + "-" + cycle(alnum, 20), KindGitLab},
		{"gitlab trigger token", "glptt" + "-" + cycle("0123456789abcdef", 40), KindGitLab},
		{"gitlab oauth secret", "gloas" + "-" + cycle(alnum, 64), KindGitLab},
		{"gitlab lower-case in a sentence", "the token is " + glpatLower + ".", KindGitLab},

		// OpenAI and Anthropic.
		{"openai legacy lower-case", legacyLower, KindOpenAI},
		{"openai legacy 48 letters and digits", "sk-" + cycle(alnum, 48), KindOpenAI},
		{"openai project lower-case", projLower, KindOpenAI},
		{"openai project real shape", "sk-" + "proj-" + cycle(b64url, 74) + "T3Blbk" + "FJ" + cycle(b64url, 74), KindOpenAI},
		{"openai service account", "sk-" + "svcacct-" + cycle(b64url, 74), KindOpenAI},
		{"openai admin key", "sk-" + "admin-" + cycle(b64url, 58), KindOpenAI},
		{"openai project separated lower-case", "sk-" + "proj-" + cycle(lower, 24) + "_" + cycle(lower, 24), KindOpenAI},
		{"anthropic lower-case", "sk-" + "ant-" + "api-" + cycle(lower, 40), KindAnthropic},

		// GitHub.
		{"github fine-grained lower-case", patLower, KindGitHub},
		{"github classic lower-case", "ghp" + "_" + cycle(lower, 36), KindGitHub},

		// Stripe.
		{"stripe live secret", stripe, KindStripe},
		{"stripe live restricted", "rk" + "_live_" + cycle(alnum, 24), KindStripe},
		{"stripe test secret", "sk" + "_test_" + cycle(alnum, 24), KindStripe},
		{"stripe long key", "sk" + "_live_" + "51" + cycle(alnum, 97), KindStripe},
		{"stripe in an env line", "STRIPE_SECRET_KEY=" + stripe, KindStripe},

		// Google.
		{"google api key", google, KindGoogle},
		{"google api key in json", `{"key": "` + google + `"}`, KindGoogle},
		{"google api key in a url", "https://maps.googleapis.com/maps/api?key=" + google + "&q=1", KindGoogle},

		// npm.
		{"npm token", npmToken, KindNPM},
		{"npm token in .npmrc", "//registry.npmjs.org/:_authToken=" + npmToken, KindNPM},

		// PyPI.
		{"pypi token", pypiToken, KindPyPI},
		{"test pypi token", "pypi" + "-" + "AgENdGVzdC5weXBpLm9yZw" + cycle(b64url, 150), KindPyPI},
		{"pypi token shortest", "pypi" + "-" + "AgE" + cycle(b64url, 61), KindPyPI},

		// Hugging Face.
		{"hugging face token", hfToken, KindHuggingFace},
		{"hugging face lower-case", "hf" + "_" + cycle(lower, 34), KindHuggingFace},
		{"hugging face after =", "HF_TOKEN=" + hfToken, KindHuggingFace},

		// Vault.
		{"vault service token", fakeVault, KindVault},
		{"vault batch token", "hvb" + "." + cycle(b64url, 138), KindVault},
		{"vault recovery token", "hvr" + "." + cycle(b64url, 30), KindVault},
		{"vault token shortest", "hvs" + "." + cycle(alnum, 24), KindVault},
		{"vault lower-case run", "hvs" + "." + cycle(lower, 24), KindVault},
		{"vault in a command", "vault login " + fakeVault, KindVault},

		// Doppler.
		{"doppler personal", fakeDoppler, KindDoppler},
		{"doppler personal lower-case", "dp" + ".pt." + cycle(lower+"0123456789", 43), KindDoppler},
		{"doppler cli", "dp" + ".ct." + cycle(alnum, 43), KindDoppler},
		{"doppler service account", "dp" + ".sa." + cycle(alnum, 44), KindDoppler},
		{"doppler scim", "dp" + ".scim." + cycle(alnum, 40), KindDoppler},
		{"doppler audit", "dp" + ".audit." + cycle(alnum, 43), KindDoppler},
		{"doppler service with environment", dopplerService, KindDoppler},
		{"doppler service without environment", "dp" + ".st." + cycle(alnum, 44), KindDoppler},
		{"doppler in an env line", "DOPPLER_TOKEN=" + fakeDoppler, KindDoppler},

		// Tricky ordinary text.
		{"sk-learn", "pip install sk-learn", ""},
		{"task-force", "the task-force meets on Monday", ""},
		{"hf_ alone", "the hf_ prefix marks Hugging Face tokens", ""},
		{"hf_ identifier", "call hf_hub_download(repo_id, filename)", ""},
		{"hf_ 33 letters", "hf" + "_" + cycle(letters, 33), ""},
		{"hf_ 35 letters", "hf" + "_" + cycle(letters, 35), ""},
		{"hf_ 34 letters and a digit", "hf" + "_" + cycle(letters, 34) + "1", ""},
		{"hf_ placeholder", "hf" + "_" + strings.Repeat("x", 34), ""},
		{"npm_config", "set npm_config_registry in the environment", ""},
		{"npm_config alone", "npm_config", ""},
		{"npm_ 35", "npm" + "_" + cycle(alnum, 35), ""},
		{"npm_ 37", "npm" + "_" + cycle(alnum, 37), ""},
		{"npm_ placeholder", "npm" + "_" + strings.Repeat("X", 36), ""},
		{"AIzaXXX too short", "AIzaXXX", ""},
		{"AIza 34", "AIza" + cycle(b64url, 34), ""},
		{"AIza 36", "AIza" + cycle(b64url, 36), ""},
		{"AIza placeholder", "AIza" + strings.Repeat("X", 35), ""},
		{"AIza inside a word", "xAIza" + cycle(b64url, 35), ""},
		{"pypi- word", "publish with a pypi-token from your account", ""},
		{"pypi- without the macaroon", "pypi" + "-" + cycle(b64url, 100), ""},
		{"pypi- macaroon too short", "pypi" + "-" + "AgE" + cycle(b64url, 60), ""},
		{"sk_live_ word", "the sk_live_mode flag", ""},
		{"sk_live_ 23", "sk" + "_live_" + cycle(alnum, 23), ""},
		{"sk_live_ placeholder", "sk" + "_live_" + strings.Repeat("x", 24), ""},
		{"rk_live alone", "rk_live", ""},
		{"hvs. file name", "see hvs.config and hvs.example.com", ""},
		{"hvs. placeholder", "hvs" + "." + strings.Repeat("x", 95), ""},
		{"hvs. short", "hvs" + "." + cycle(alnum, 23), ""},
		{"dp.pt. alone", "the dp.pt. prefix", ""},
		{"dp.pt. 39", "dp" + ".pt." + cycle(alnum, 39), ""},
		{"dp.pt. 45", "dp" + ".pt." + cycle(alnum, 45), ""},
		{"dp.pt. placeholder", "dp" + ".pt." + strings.Repeat("x", 43), ""},
		{"dp.st. environment only", "dp.st.dev.", ""},
		{"dp.st. environment too long", "dp" + ".st." + cycle(lower, 36) + "." + cycle(alnum, 40), ""},
		{"dp.pt. inside a word", "xdp" + ".pt." + cycle(alnum, 43), ""},
		{"glpat- placeholder", "glpat" + "-" + strings.Repeat("x", 20), ""},
		{"glpat- 19 letters", "glpat" + "-" + cycle(lower, 19), ""},
		{"ghp_ 19 letters", "ghp" + "_" + cycle(lower, 19), ""},
		{"sk- 31 letters", "sk-" + cycle(lower, 31), ""},
		{"sk- long kebab case", "sk-this-is-not-a-key-only-a-very-long-kebab-case-name", ""},
		{"sk- long snake case", "sk-" + "some_rather_long_snake_case_identifier_name", ""},
		{"sk-proj- words", "sk-proj-template-for-new-services", ""},
		{"github_pat_ words", "github_pat_tokens_replace_classic_personal_tokens", ""},
		{"xoxb- words", "xoxb-tokens-are-issued-to-slack-bots", ""},
		{"long word after a dash", "pre-internationalization", ""},
		{"long word", "internationalization and localization", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, found := Detect(tt.in)
			if found != (tt.want != "") || kind != tt.want {
				t.Errorf("Detect(%q) = %q, %v; want %q", tt.in, kind, found, tt.want)
			}
			if tt.want == "" {
				return
			}
			// Found also amid prose, and never the value echoed in the kind.
			if k, f := Detect("Here it is: " + tt.in + " (thanks)"); !f || k != tt.want {
				t.Errorf("Detect in a sentence = %q, %v; want %q", k, f, tt.want)
			}
			if !slices.Contains(kinds, kind) {
				t.Errorf("kind %q is not a known kind", kind)
			}
		})
	}
}

// TestDetectNoFalsePositivesInProse runs Detect over every line of the
// project's README.md and docs/*.md, and of the seed documents beside the
// module when they are there: ordinary prose and examples must never be
// taken for a credential. The lines listed in allowed show a credential's
// shape on purpose.
func TestDetectNoFalsePositivesInProse(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	allowed := []struct {
		file, contains, kind string
	}{
		// The look-alike table of docs/ask_user.md shows the URL shape.
		{"docs/ask_user.md", "`scheme://user:password@host`", KindURLPassword},
	}
	used := make([]bool, len(allowed))
	files := []string{filepath.Join(root, "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	files = append(files, docs...)
	seeds, _ := filepath.Glob(filepath.Join(root, "..", "shared", "seeds", "*.txt"))
	files = append(files, seeds...)
	lines := 0
	for _, name := range files {
		rel, _ := filepath.Rel(root, name)
		rel = filepath.ToSlash(rel)
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			lines++
			line := sc.Text()
			kind, found := Detect(line)
			if !found {
				continue
			}
			ok := false
			for i, a := range allowed {
				if rel == a.file && strings.Contains(line, a.contains) && kind == a.kind {
					ok, used[i] = true, true
				}
			}
			if !ok {
				t.Errorf("%s:%d is taken for %s:\n%s", rel, n, kind, line)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
	}
	for i, a := range allowed {
		if !used[i] {
			t.Errorf("allowed line %q of %s no longer found as %s; remove it from the list", a.contains, a.file, a.kind)
		}
	}
	t.Logf("%d lines of %d files", lines, len(files))
}
