package respondertest

import (
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// A namedForm is a form the kit asks, with what it is for messages.
type namedForm struct {
	name string
	form *askuser.Form
}

// forms are the forms of every kind without a sealed question.
func forms(timeout int) []namedForm {
	return []namedForm{
		{"single choice", &askuser.Form{TimeoutSeconds: timeout, Title: "Deploy", HumanIntent: "Deploying the login fix", Questions: []askuser.Question{{
			ID: "env", Header: "Env", Text: "Which environment?", AllowOther: true,
			Options: []askuser.Option{
				{Label: "staging", Description: "Safe to break"},
				{Label: "production", Description: "Real users", Preview: "kubectl apply -f prod.yaml\nkubectl rollout status deploy/login\n", Default: true},
			},
		}}}},
		{"multi-select", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, AllowOther: true, OnDeadline: askuser.FallbackDraft,
			Options: []askuser.Option{
				{Label: "eu", Description: "Europe", Default: true},
				{Label: "us", Description: "America", Default: true},
				{Label: "ap", Description: "Asia"},
			},
		}}}},
		{"closed choice", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "size", Header: "Size", Text: "Which size?", NoDefault: true,
			Options: []askuser.Option{{Value: "s", Label: "small", Description: "1 CPU"}, {Value: "l", Label: "large", Description: "8 CPUs"}},
		}}}},
		{"text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "branch", Kind: askuser.KindText, Header: "Branch", Text: "Which branch name?", Prefill: "fix/login",
		}}}},
		{"multi-line text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "notes", Kind: askuser.KindText, Header: "Notes", Text: "Release notes?", Multiline: true, OnDeadline: askuser.FallbackNothing,
		}}}},
		{"four questions", &askuser.Form{TimeoutSeconds: timeout, Title: "Release", Questions: []askuser.Question{
			{ID: "a", Header: "A", Text: "First?", AllowOther: true, OtherExclusive: true, OtherLabel: "Another way",
				Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y"}}},
			{ID: "b", Header: "B", Text: "Second?", MultiSelect: true, Optional: true,
				Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y"}}},
			{ID: "c", Kind: askuser.KindText, Header: "C", Text: "Third?", Optional: true},
			{ID: "d", Header: "D", Text: "Fourth?", Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y", Default: true}}},
		}}},
	}
}

// singleChoice is the first of the forms.
func singleChoice(timeout int) namedForm { return forms(timeout)[0] }

// approvalWithDetails is the approval of medium risk, with details.
func approvalWithDetails(timeout int) namedForm { return approvalForms(timeout)[1] }

// approvalForms are approvals of every risk, with and without details.
func approvalForms(timeout int) []namedForm {
	mk := func(name string, a approval.Request, intent string) namedForm {
		f, err := approvaltool.Form(a, timeout)
		if err != nil {
			panic("respondertest: an approval of the kit's own is not valid: " + err.Error())
		}
		f.HumanIntent = intent
		return namedForm{name, f}
	}
	return []namedForm{
		mk("approval, low risk", approval.Request{Action: "Read the file config/prod.yaml", Reason: "To see which replicas are set", Risk: approval.RiskLow}, ""),
		mk("approval, medium risk, with details", approval.Request{Action: "Restart the login service", Reason: "It holds a stale certificate", Risk: approval.RiskMedium,
			Details: "kubectl rollout restart deploy/login -n prod\nkubectl rollout status deploy/login -n prod\n"}, "Fixing the login outage"),
		mk("approval, high risk", approval.Request{Action: "Force-push main", Reason: "To drop a commit that leaked a key", Risk: approval.RiskHigh,
			Details: "git push --force origin main"}, ""),
		mk("approval, irreversible, with details", approval.Request{Action: "Delete the bucket logs-2019", Reason: "It is past its retention and costs money", Risk: approval.RiskIrreversible,
			Details: "gsutil rm -r gs://logs-2019\n\n1,204 objects, 88 GiB:\n  2019-01/…\n  2019-02/…\n"}, "Cleaning up old storage"),
	}
}

// The labels of the sensitive options: a secret handed over for them holds
// one of these, which the kit looks for where no secret may be.
var canaries = []string{"respondertest-canary-amber-4c1f9e", "respondertest-canary-teal-8d27b3", "respondertest-canary-plum-e05a61"}

// needles are what the kit looks for of a sealed value: the canaries it
// holds, or else the value itself when it is long enough not to turn up
// in ordinary text by chance.
func needles(v string) []string {
	var ns []string
	for _, c := range canaries {
		if strings.Contains(v, c) {
			ns = append(ns, c)
		}
	}
	if ns == nil && len(strings.TrimSpace(v)) >= 8 {
		ns = append(ns, v)
	}
	return ns
}

// secretForms are the forms with a sealed question.
func secretForms(timeout int) []namedForm {
	opts := func() []askuser.Option {
		var os []askuser.Option
		for _, c := range canaries {
			os = append(os, askuser.Option{Label: c, Description: "a sensitive option"})
		}
		return os
	}
	return []namedForm{
		{"secret", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "token", Kind: askuser.KindSecret, Header: "Token", Text: "Paste the deploy token", SecretName: "DEPLOY_TOKEN", Purpose: "to deploy the login fix",
		}}}},
		{"sensitive choice", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "pin", Header: "Recovery", Text: "Which recovery word?", Sensitive: true, Options: opts(),
		}}}},
		{"sensitive multi-select", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "words", Header: "Words", Text: "Which words?", Sensitive: true, MultiSelect: true, AllowOther: true, SecretName: "WORDS", Options: opts(),
		}}}},
		{"sensitive text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{
			{ID: "user", Kind: askuser.KindText, Header: "User", Text: "Which user?"},
			{ID: "pass", Kind: askuser.KindText, Header: "Password", Text: "Their password?", Sensitive: true, SecretName: "PASSWORD"},
		}}},
	}
}
