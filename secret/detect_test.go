package secret

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// kinds lists every kind Detect can report.
var kinds = []string{
	KindOpenAI, KindAnthropic, KindGitHub, KindGitLab, KindSlack,
	KindAWS, KindPEM, KindJWT, KindURLPassword,
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

// TestDetectLinear feeds inputs built to make a backtracking matcher or a
// careless scanner quadratic, and checks they finish quickly.
func TestDetectLinear(t *testing.T) {
	const n = 1 << 20
	inputs := map[string]string{
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
	}
	for name, in := range inputs {
		start := time.Now()
		kind, found := Detect(in)
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("%s: Detect took %v on %d bytes; want linear time", name, elapsed, len(in))
		}
		if found {
			t.Errorf("%s: Detect found %q; want nothing", name, kind)
		}
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
