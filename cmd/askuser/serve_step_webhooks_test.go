package main

import (
	"strings"
	"testing"
)

// TestStepWebhookFlags: --step-webhook takes NAME=URL, each name once,
// NAME a channel's target and URL an http(s) URL; an error never repeats
// more of a URL than its scheme and host.
func TestStepWebhookFlags(t *testing.T) {
	f := stepWebhookFlags{pairs: listFlag{"two=http://127.0.0.1:9/a", "pager=https://hooks.example/x?token=s3cret"}}
	got, err := f.parse()
	if err != nil || len(got) != 2 || got["pager"] != "https://hooks.example/x?token=s3cret" {
		t.Fatalf("parse = %v, %v", got, err)
	}
	for _, bad := range []string{"nourl", "=http://h/", "two=ftp://h/", "two=http://h/?token=s3cret&x", "a b=http://h/"} {
		f := stepWebhookFlags{pairs: listFlag{bad, bad}}
		if _, err := f.parse(); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("parse(%q) = %v; want an error without the URL's secret", bad, err)
		}
	}
}

// FuzzStepWebhookFlag: any flag value is parsed or refused, never
// panicking, and a refusal never repeats the value's query.
func FuzzStepWebhookFlag(f *testing.F) {
	f.Add("two=http://127.0.0.1:9/a?token=s3cret")
	f.Add("=")
	f.Add("a=b=c")
	f.Fuzz(func(t *testing.T, v string) {
		s := stepWebhookFlags{pairs: listFlag{v}}
		got, err := s.parse()
		if err == nil && len(got) != 1 {
			t.Fatalf("parse(%q) accepted %v", v, got)
		}
		if err != nil && strings.Contains(v, "?s3cret") && strings.Contains(err.Error(), "?s3cret") {
			t.Fatalf("parse(%q) repeats the query: %v", v, err)
		}
	})
}
