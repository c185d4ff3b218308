package termtext_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
)

// form is a call of three questions: a single choice, a multi-select and
// a secret.
func form() *askuser.Form {
	return &askuser.Form{Questions: []askuser.Question{
		{ID: "env", Header: "Env", Kind: askuser.KindChoice, Options: []askuser.Option{
			{Value: "staging", Label: "staging", Default: true}, {Value: "production", Label: "production"}}},
		{ID: "regions", Header: "Regions", Kind: askuser.KindChoice, MultiSelect: true, Options: []askuser.Option{
			{Value: "eu", Label: "Europe"}, {Value: "us", Label: "America"}, {Value: "ap", Label: "Asia"}}},
		{ID: "token", Header: "Token", Kind: askuser.KindSecret},
	}}
}

func person(id string, sel ...string) askuser.FinalAnswer {
	return askuser.FinalAnswer{QuestionID: id, Selected: sel, By: askuser.ByUser}
}

// TestSummary: each way an ask of questions can end, as the line-based
// responder words it (the zero Words) and, where the card words it its own
// way, as the card does.
func TestSummary(t *testing.T) {
	card := termtext.Words{Dismissed: "Cancelled", LabelSep: ", "}
	env := person("env", "production")
	regions := person("regions", "ap", "eu") // picked out of option order
	def := askuser.FinalAnswer{QuestionID: "regions", Selected: []string{"eu", "us"}, By: askuser.ByTimeout}
	draft := askuser.FinalAnswer{QuestionID: "regions", Selected: []string{"us"}, By: askuser.ByTimeout, Draft: true}
	sealed := askuser.FinalAnswer{QuestionID: "token", SecretRef: "session:DEPLOY_TOKEN", By: askuser.ByUser}
	other := askuser.FinalAnswer{QuestionID: "env", Other: "  canary  ", By: askuser.ByUser}
	noteOnly := askuser.FinalAnswer{QuestionID: "env", Note: "ask me later", By: askuser.ByUser}
	both := askuser.FinalAnswer{QuestionID: "regions", Selected: []string{"us", "mars"}, Other: "the moon", By: askuser.ByUser}
	gone := askuser.FinalAnswer{QuestionID: "not-asked", Selected: []string{"x"}}

	tests := []struct {
		name   string
		o      *askuser.Outcome
		words  termtext.Words
		want   string
		noForm bool
	}{
		{name: "no outcome", o: nil, want: "The ask has ended."},
		{name: "submitted", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Status: askuser.StatusAnswered, Answers: []askuser.FinalAnswer{env, regions}},
			want: "Submitted: Env → production, Regions → Europe + Asia"},
		{name: "submitted, on the card", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Status: askuser.StatusAnswered, Answers: []askuser.FinalAnswer{env, regions}},
			words: card, want: "Submitted: Env → production, Regions → Europe, Asia"},
		{name: "submitted with nothing", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Status: askuser.StatusAnswered},
			want: "Submitted, with no answers."},
		{name: "free text, trimmed and quoted", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{other}},
			want: `Submitted: Env → "canary"`},
		{name: "labels, a value no option has, and free text", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{both}},
			want: `Submitted: Regions → America + mars + "the moon"`},
		{name: "a sealed answer shows its reference", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{sealed}},
			want: "Submitted: Token → sealed as session:DEPLOY_TOKEN"},
		{name: "a note alone", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{noteOnly}},
			want: "Submitted: Env → a note"},
		{name: "an answer to no question of the form is left out", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{gone, env}},
			want: "Submitted: Env → production"},
		{name: "no form: nothing to name the answers by", o: &askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: []askuser.FinalAnswer{env}},
			noForm: true, want: "Submitted, with no answers."},

		{name: "deadline: defaults and a draft applied", o: &askuser.Outcome{Reason: askuser.ReasonDeadline, Status: askuser.StatusTimedOut, Answers: []askuser.FinalAnswer{env, def}},
			want: "Time is up: Env → production (your answer), Regions → Europe + America (recommended, applied at the deadline)"},
		{name: "deadline: a draft kept", o: &askuser.Outcome{Reason: askuser.ReasonDeadline, Status: askuser.StatusTimedOut, Answers: []askuser.FinalAnswer{draft}},
			want: "Time is up: Regions → America (your unconfirmed pick)"},
		{name: "deadline: nothing to apply", o: &askuser.Outcome{Reason: askuser.ReasonDeadline, Status: askuser.StatusTimedOut},
			want: "Time is up: nothing was applied."},
		{name: "deadline: declined, unanswered", o: &askuser.Outcome{Reason: askuser.ReasonDeadline, Status: askuser.StatusDeclined},
			want: "Time is up: nothing was applied; the ask ends unanswered."},
		{name: "deadline: declined, with answers", o: &askuser.Outcome{Reason: askuser.ReasonDeadline, Status: askuser.StatusDeclined, Answers: []askuser.FinalAnswer{env}},
			want: "Time is up: nothing more was applied; the ask ends with your answers: Env → production (your answer)"},

		{name: "dismissed", o: &askuser.Outcome{Reason: askuser.ReasonDismissed, Status: askuser.StatusCancelled},
			want: "Dismissed; no answer was given."},
		{name: "dismissed, kept", o: &askuser.Outcome{Reason: askuser.ReasonDismissed, Status: askuser.StatusCancelled, Answers: []askuser.FinalAnswer{env}},
			want: "Dismissed; kept: Env → production (your answer)"},
		{name: "cancelled on the card", o: &askuser.Outcome{Reason: askuser.ReasonDismissed, Status: askuser.StatusCancelled},
			words: card, want: "Cancelled; no answer was given."},
		{name: "declined", o: &askuser.Outcome{Reason: askuser.ReasonDeclined, Status: askuser.StatusDeclined},
			want: "Declined: nothing you answered is passed on."},
		{name: "declined, by a call that keeps the answers", o: &askuser.Outcome{Reason: askuser.ReasonDeclined, Status: askuser.StatusDeclined, Answers: []askuser.FinalAnswer{env}},
			want: "Declined; kept: Env → production (your answer)"},
		{name: "superseded", o: &askuser.Outcome{Reason: askuser.ReasonSuperseded, Status: askuser.StatusCancelled, Answers: []askuser.FinalAnswer{env}},
			want: "Withdrawn by the program; kept: Env → production (your answer)"},
		{name: "unattended: defaults applied", o: &askuser.Outcome{Reason: askuser.ReasonUnattended, Status: askuser.StatusAnswered, Answers: []askuser.FinalAnswer{def}},
			want: "Nobody could be asked: Regions → Europe + America (recommended)"},
		{name: "unattended: declined", o: &askuser.Outcome{Reason: askuser.ReasonUnattended, Status: askuser.StatusDeclined},
			want: "Nobody could be asked; the ask ends unanswered."},
		{name: "unattended: declined, with answers", o: &askuser.Outcome{Reason: askuser.ReasonUnattended, Status: askuser.StatusDeclined, Answers: []askuser.FinalAnswer{env}},
			want: "Nobody could be asked; the ask ends with your answers: Env → production (your answer)"},
		{name: "the caller stopped waiting", o: &askuser.Outcome{Reason: askuser.ReasonCaller, Status: askuser.StatusCancelled, Answers: []askuser.FinalAnswer{env}},
			want: "The agent stopped waiting; nothing is passed on."},
		{name: "the responder failed", o: &askuser.Outcome{Reason: askuser.ReasonFault, Status: askuser.StatusCancelled},
			want: "The ask failed; no answer was given."},
		{name: "a reason this package does not know", o: &askuser.Outcome{Reason: "eaten\x1b[2J", Answers: []askuser.FinalAnswer{env}},
			want: `The ask ended (eaten\x1b[2J); kept: Env → production (your answer)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.o != nil && !tt.noForm {
				tt.o.Form = form()
			}
			if diff := cmp.Diff(tt.want, termtext.Summary(tt.o, tt.words)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func approvalOutcome(t *testing.T, o askuser.Outcome, decision, note string) *askuser.Outcome {
	t.Helper()
	f, err := approvaltool.Form(approval.Request{Action: "Delete the bucket", Reason: "It is empty", Risk: approval.RiskHigh}, 60)
	if err != nil {
		t.Fatal(err)
	}
	o.Form = f
	if decision != "" {
		o.Answers = []askuser.FinalAnswer{{QuestionID: approval.QuestionID, Selected: []string{decision}, Note: note}}
	}
	return &o
}

// TestVerdict: each way an approval can end, as a phrase; Summary puts a
// full stop after it.
func TestVerdict(t *testing.T) {
	none := ": nothing was decided, and your agent has no permission"
	tests := []struct {
		reason   askuser.Reason
		decision string
		want     string
	}{
		{askuser.ReasonSubmitted, approval.ApproveOnce, "Approved, this once"},
		{askuser.ReasonSubmitted, approval.ApproveSession, "Approved for the rest of this session"},
		{askuser.ReasonSubmitted, approval.DenyOnce, "Denied"},
		{askuser.ReasonSubmitted, approval.DenySession, "Denied for the rest of this session"},
		{askuser.ReasonDeclined, "", "Denied"},
		{askuser.ReasonRemembered, approval.ApproveOnce, "Approved, as you decided earlier in this session"},
		{askuser.ReasonRemembered, approval.DenyOnce, "Denied, as you decided earlier in this session"},
		{askuser.ReasonPolicy, approval.ApproveOnce, "Approved by the program's policy"},
		{askuser.ReasonPolicy, approval.DenyOnce, "Denied by the program's policy"},
		{askuser.ReasonDeadline, approval.ApproveOnce, "Time is up" + none},
		{askuser.ReasonDismissed, "", "Dismissed" + none},
		{askuser.ReasonSuperseded, "", "Withdrawn by the program" + none},
		{askuser.ReasonUnattended, "", "Nobody could be asked" + none},
		{askuser.ReasonCaller, "", "The agent stopped waiting" + none},
		{askuser.ReasonFault, "", "The ask failed" + none},
	}
	for _, tt := range tests {
		o := approvalOutcome(t, askuser.Outcome{Reason: tt.reason}, tt.decision, "a note\x1b[2J")
		v, ok := approvaltool.VerdictOf(o)
		if !ok {
			t.Fatalf("%s %s: not an approval's outcome", tt.reason, tt.decision)
		}
		if got := termtext.Verdict(v); got != tt.want {
			t.Errorf("%s %s: Verdict %q, want %q", tt.reason, tt.decision, got, tt.want)
		}
		if got, want := termtext.Summary(o, termtext.Words{}), tt.want+"."; got != want {
			t.Errorf("%s %s: Summary %q, want %q", tt.reason, tt.decision, got, want)
		}
	}
}

func TestRisk(t *testing.T) {
	for r, want := range map[approval.Risk]string{
		approval.RiskIrreversible: "!!! Risk: IRREVERSIBLE: this cannot be undone !!!",
		approval.RiskHigh:         "!! Risk: HIGH",
		approval.RiskMedium:       "Risk: medium",
		approval.RiskLow:          "Risk: low",
		"extreme\x1b]52;c;eA==\a": `Risk: extreme\x1b]52;c;eA==\a`,
	} {
		if got := termtext.Risk(r); got != want {
			t.Errorf("Risk(%q) = %q, want %q", r, got, want)
		}
	}
}

// TestLabels: labels come in option order, whatever order they were
// picked in, and a value no option has comes last, as it is.
func TestLabels(t *testing.T) {
	q := &form().Questions[1]
	for _, tt := range []struct {
		values []string
		sep    string
		want   string
	}{
		{nil, " + ", ""},
		{[]string{"ap"}, " + ", "Asia"},
		{[]string{"ap", "eu"}, " + ", "Europe + Asia"},
		{[]string{"mars", "ap", "us", "eu"}, ", ", "Europe, America, Asia, mars"},
	} {
		if got := termtext.Labels(q, tt.values, tt.sep); got != tt.want {
			t.Errorf("Labels(%q, %q) = %q, want %q", tt.values, tt.sep, got, tt.want)
		}
	}
	if got, want := termtext.Quoted(`say "hi"`+"\r\n"), `"say "hi"\r\n"`; got != want {
		t.Errorf("Quoted = %q, want %q", got, want)
	}
}

// evil is what a model or a person could put in any string to act on a
// terminal: erase the screen, set the clipboard, write over the line,
// reorder what follows, break the UTF-8.
const evil = "\x1b[2J\x1b]52;c;cm0gLXJmIH4=\a\r\u202e\u009b1m\xff"

// shownEvil is evil as inert shows it.
var shownEvil = inert.Line(evil)

// checkInert fails unless s is safe to print on a terminal: inert leaves
// it as it is, so it holds nothing a terminal acts on.
func checkInert(t *testing.T, what, s string) {
	t.Helper()
	if inert.Line(s) != s {
		t.Errorf("%s comes out raw: %q", what, s)
	}
}

// TestNothingComesOutRaw puts escape sequences in every string a model or
// a person writes — headers, labels, values, free text, secret references,
// the reason, an unknown risk — and checks that every ending shows them
// made visible, never raw.
func TestNothingComesOutRaw(t *testing.T) {
	f := &askuser.Form{Questions: []askuser.Question{
		{ID: "q1", Header: "H" + evil, Options: []askuser.Option{{Value: "v" + evil, Label: "L" + evil}}},
		{ID: "q2", Header: "S" + evil, Kind: askuser.KindSecret},
	}}
	answers := []askuser.FinalAnswer{
		{QuestionID: "q1", Selected: []string{"v" + evil, "unknown" + evil}, Other: "typed" + evil, By: askuser.ByUser},
		{QuestionID: "q2", SecretRef: "session:T" + evil, By: askuser.ByTimeout},
	}
	reasons := []askuser.Reason{askuser.ReasonSubmitted, askuser.ReasonDeadline, askuser.ReasonDismissed, askuser.ReasonDeclined,
		askuser.ReasonSuperseded, askuser.ReasonUnattended, askuser.ReasonCaller, askuser.ReasonFault, askuser.Reason("r" + evil)}
	statuses := []askuser.Status{askuser.StatusAnswered, askuser.StatusDeclined, askuser.StatusCancelled, askuser.StatusTimedOut}
	for _, w := range []termtext.Words{{}, {Dismissed: "Cancelled", LabelSep: ", "}} {
		for _, r := range reasons {
			for _, st := range statuses {
				o := &askuser.Outcome{Form: f, Reason: r, Status: st, Answers: answers}
				s := termtext.Summary(o, w)
				checkInert(t, string(r)+"/"+string(st), s)
				if strings.Contains(s, "→") && !strings.Contains(s, "H"+shownEvil+" → L"+shownEvil) {
					t.Errorf("%s/%s: the answers are not shown made visible: %q", r, st, s)
				}
			}
		}
	}
	o := &askuser.Outcome{Form: f, Reason: askuser.ReasonSubmitted, Answers: answers}
	want := "Submitted: H" + shownEvil + " → L" + shownEvil + " + unknown" + shownEvil + ` + "typed` + shownEvil + `", ` +
		"S" + shownEvil + " → sealed as session:T" + shownEvil
	if diff := cmp.Diff(want, termtext.Summary(o, termtext.Words{})); diff != "" {
		t.Errorf("every model-written string shown made visible (-want +got):\n%s", diff)
	}
	checkInert(t, "an unknown risk", termtext.Risk(approval.Risk(evil)))
	checkInert(t, "quoted text", termtext.Quoted(evil))
	checkInert(t, "labels", termtext.Labels(&f.Questions[0], []string{"v" + evil, evil}, " + "))
}

// FuzzSummary: whatever a model or a person writes, nothing of it comes
// out raw.
func FuzzSummary(f *testing.F) {
	f.Add("Env", "production", "prod", "typed", "session:T", "declined")
	f.Add(evil, evil, evil, evil, evil, evil)
	f.Fuzz(func(t *testing.T, header, label, value, other, ref, reason string) {
		form := &askuser.Form{Questions: []askuser.Question{{ID: "q", Header: header, Options: []askuser.Option{{Value: value, Label: label}}}}}
		o := &askuser.Outcome{Form: form, Reason: askuser.Reason(reason), Status: askuser.StatusCancelled,
			Answers: []askuser.FinalAnswer{{QuestionID: "q", Selected: []string{value, other}, Other: other, SecretRef: ref, By: askuser.ByUser}}}
		checkInert(t, "a summary", termtext.Summary(o, termtext.Words{}))
		checkInert(t, "a summary on the card", termtext.Summary(o, termtext.Words{Dismissed: "Cancelled", LabelSep: ", "}))
		checkInert(t, "a risk", termtext.Risk(approval.Risk(reason)))
	})
}

// TestPicks: the numbers typed at a choice, as both terminals read them.
func TestPicks(t *testing.T) {
	q := &askuser.Question{ID: "q", AllowOther: true, Options: []askuser.Option{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}, {Value: "c", Label: "c"}}}
	multi := *q
	multi.MultiSelect = true
	noOther := *q
	noOther.AllowOther = false
	tests := []struct {
		name  string
		q     *askuser.Question
		typed string
		picks []int
		other bool
		ok    bool
	}{
		{"nothing", q, "  ", nil, false, true},
		{"one", q, " 2 ", []int{1}, false, true},
		{"leading zero", q, "02", []int{1}, false, true},
		{"the free-text row", q, "4", nil, true, true},
		{"no free-text row", &noOther, "4", nil, false, false},
		{"several on a single choice", q, "1,2", nil, false, false},
		{"several, in the order typed", &multi, "3, 1\t4", []int{2, 0}, true, true},
		{"twice", &multi, "1 1", nil, false, false},
		{"zero", q, "0", nil, false, false},
		{"a sign", q, "+1", nil, false, false},
		{"negative", q, "-1", nil, false, false},
		{"not ASCII digits", q, "٣", nil, false, false},
		{"too large", q, "99999999999999999999", nil, false, false},
		{"a word", q, "one", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			picks, other, ok := termtext.Picks(tt.q, tt.typed)
			if !slices.Equal(picks, tt.picks) || other != tt.other || ok != tt.ok {
				t.Errorf("Picks(%q) = %v, %v, %v; want %v, %v, %v", tt.typed, picks, other, ok, tt.picks, tt.other, tt.ok)
			}
		})
	}
}
