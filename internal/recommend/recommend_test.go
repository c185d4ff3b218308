package recommend_test

import (
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/recommend"
)

func TestTook(t *testing.T) {
	choice := func(opts ...askuser.Option) askuser.Question {
		return askuser.Question{ID: "q", Kind: askuser.KindChoice, Options: opts}
	}
	a, b := askuser.Option{Value: "a", Label: "A"}, askuser.Option{Value: "b", Label: "B"}
	bDef := b
	bDef.Default = true
	aDef := a
	aDef.Default = true
	tests := []struct {
		name           string
		q              askuser.Question
		ans            *askuser.FinalAnswer
		approval       bool
		recommends, ok bool
	}{
		{"the marked default", choice(a, bDef), &askuser.FinalAnswer{Selected: []string{"b"}}, false, true, true},
		{"another option", choice(a, bDef), &askuser.FinalAnswer{Selected: []string{"a"}}, false, true, false},
		{"the first option when none is marked", choice(a, b), &askuser.FinalAnswer{Selected: []string{"a"}}, false, true, true},
		{"every default of a multi-select, in any order", choice(aDef, bDef), &askuser.FinalAnswer{Selected: []string{"b", "a"}}, false, true, true},
		{"one of two defaults", choice(aDef, bDef), &askuser.FinalAnswer{Selected: []string{"a"}}, false, true, false},
		{"the default with free text", choice(aDef, b), &askuser.FinalAnswer{Selected: []string{"a"}, Other: "also c"}, false, true, false},
		{"no answer", choice(aDef, b), nil, false, true, false},
		{"no default", func() askuser.Question { q := choice(a, b); q.NoDefault = true; return q }(), &askuser.FinalAnswer{Selected: []string{"a"}}, false, false, false},
		{"a text question", askuser.Question{ID: "q", Kind: askuser.KindText}, &askuser.FinalAnswer{Other: "x"}, false, false, false},
		{"a sealed choice", func() askuser.Question { q := choice(aDef, b); q.Sensitive = true; return q }(), &askuser.FinalAnswer{SecretRef: "s:q"}, false, false, false},
		{"an approval", choice(aDef, b), &askuser.FinalAnswer{Selected: []string{"a"}}, true, false, false},
	}
	for _, tt := range tests {
		f := &askuser.Form{Questions: []askuser.Question{tt.q}}
		if tt.approval {
			f.Approval = &approval.Request{}
		}
		rec, ok := recommend.Took(f, &f.Questions[0], tt.ans)
		if rec != tt.recommends || ok != tt.ok {
			t.Errorf("%s: Took = %v, %v; want %v, %v", tt.name, rec, ok, tt.recommends, tt.ok)
		}
	}
}

func TestCount(t *testing.T) {
	f := &askuser.Form{Questions: []askuser.Question{
		{ID: "x", Kind: askuser.KindChoice, Options: []askuser.Option{{Value: "a"}, {Value: "b"}}},
		{ID: "y", Kind: askuser.KindChoice, Options: []askuser.Option{{Value: "a"}, {Value: "b"}}},
		{ID: "z", Kind: askuser.KindText},
	}}
	answers := []askuser.FinalAnswer{
		{QuestionID: "x", Selected: []string{"a"}, By: askuser.ByUser},
		{QuestionID: "y", Selected: []string{"a"}, By: askuser.ByTimeout},
		{QuestionID: "z", Other: "hi", By: askuser.ByUser},
		{QuestionID: "gone", Selected: []string{"a"}, By: askuser.ByUser},
	}
	if n, took := recommend.Count(f, answers, ""); n != 2 || took != 2 {
		t.Errorf("Count(all) = %d, %d; want 2, 2", n, took)
	}
	if n, took := recommend.Count(f, answers, askuser.ByUser); n != 1 || took != 1 {
		t.Errorf("Count(user) = %d, %d; want 1, 1", n, took)
	}
	if n, took := recommend.Count(nil, answers, ""); n != 0 || took != 0 {
		t.Errorf("Count(nil form) = %d, %d; want 0, 0", n, took)
	}
}
