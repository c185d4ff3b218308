package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is the browser the picture is taken in: Debian's, which .ci/run
// installs, as the web card's browser tests use it.
const chromium = "/usr/bin/chromium"

// TestMessagePicture renders the golden Block Kit of a real message
// (testdata/choice.json, the one docs/slack.md shows) as a small
// self-contained HTML preview, in headless Chromium, and takes its
// picture: askuser's preview of the JSON, not Slack's own client. It
// writes the PNG to $ASKUSER_SLACK_PICTURE when that is set:
//
//	ASKUSER_SLACK_PICTURE=$PWD/docs/slack-message.png go test -run TestMessagePicture ./responders/slack/
//
// It is skipped only when Chromium is missing and neither
// ASKUSER_BROWSER_TESTS nor CI asks for the browser tests.
func TestMessagePicture(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("ASKUSER_BROWSER_TESTS") != "" || os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; .ci/run installs it (apt-get install -y chromium)", chromium)
		}
		t.Skipf("%s is missing (install it with apt-get install -y chromium, or set ASKUSER_BROWSER_TESTS to make this a failure)", chromium)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "choice.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := preview(raw)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "message.html")
	if err := os.WriteFile(file, page, 0o600); err != nil {
		t.Fatal(err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WSURLReadTimeout(2*time.Minute), // a loaded machine can take longer than the 20 s default to start Chromium
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(560, 400, chromedp.EmulateScale(2)),
		chromedp.Navigate("file://"+file),
		chromedp.WaitVisible(chromedp.CSS(`#message`)),
	); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#message .button").length`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`#message`)))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the picture is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 200 || buttons != 3 {
		t.Errorf("the picture is %v with %d buttons; want the whole message, with its 3 buttons", b, buttons)
	}
	if out := os.Getenv("ASKUSER_SLACK_PICTURE"); out != "" {
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPreview: the preview shows each block's text, escaped once, with
// the date's fallback in place of Slack's date markup.
func TestPreview(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "choice.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := preview(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"Your agent asks", "1. staging (recommended) — Smoke tests first", `class="button primary"`, "Something else…", "Answer by 2026-12-01 09:02 UTC.", "not Slack"} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<!date") || strings.Contains(s, "&amp;lt;") {
		t.Errorf("the preview shows Slack's markup, or escapes twice:\n%s", s)
	}
}

// previewBlock is one Block Kit block, as far as the preview draws it.
type previewBlock struct {
	Type string `json:"type"`
	Text *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"text"`
	Elements []previewElement `json:"elements"`
}

// previewElement is a context's text, or a button.
type previewElement struct {
	Type  string `json:"type"`
	Text  any    `json:"text"` // a context's: the string; a button's: a text object
	Style string `json:"style"`
}

func (e previewElement) textString() string {
	s, _ := e.Text.(string)
	return s
}

// slackDate is Slack's date markup, <!date^…|fallback>.
var slackDate = regexp.MustCompile(`<!date\^[^|>]*\|([^>]*)>`)

// unslack turns the text of a Block Kit object into what a reader sees:
// Slack's escapes undone, a date's fallback, no mrkdwn stars.
func unslack(kind, s string) string {
	if kind == "mrkdwn" {
		s = slackDate.ReplaceAllString(s, "$1")
		s = strings.ReplaceAll(s, "*", "")
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

var previewTmpl = template.Must(template.New("preview").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>askuser: a Slack message, previewed</title>
<style>
body { margin: 0; background: #f8f8f8; font: 15px/1.45 -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1c1d; }
#message { width: 520px; margin: 0; padding: 16px 20px 14px; background: #fff; box-sizing: border-box; }
.who { font-weight: 700; } .app { font-size: 11px; background: #e8e8e8; border-radius: 3px; padding: 1px 4px; margin-left: 4px; color: #616061; }
.head { font-size: 18px; font-weight: 700; margin: 6px 0 4px; }
.section { white-space: pre-wrap; margin: 4px 0; }
.context { font-size: 12.5px; color: #616061; margin: 6px 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.button { border: 1px solid #bbbabb; border-radius: 4px; padding: 4px 12px; font-weight: 700; font-size: 14px; background: #fff; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { background: #fff; border-color: #e01e5a; color: #e01e5a; }
.note { margin-top: 12px; font-size: 11px; color: #868686; border-top: 1px solid #eee; padding-top: 6px; }
</style></head>
<body><div id="message">
<div><span class="who">askuser</span><span class="app">APP</span></div>
{{range .}}{{if eq .Kind "header"}}<div class="head">{{.Text}}</div>
{{else if eq .Kind "section"}}<div class="section">{{.Text}}</div>
{{else if eq .Kind "context"}}<div class="context">{{.Text}}</div>
{{else if eq .Kind "actions"}}<div class="actions">{{range .Buttons}}<span class="button {{.Style}}">{{.Text}}</span>{{end}}</div>
{{end}}{{end}}<div class="note">askuser's preview of the message's Block Kit JSON, drawn by askuser, not Slack's own client.</div>
</div></body></html>
`))

type previewItem struct {
	Kind, Text string
	Buttons    []struct{ Text, Style string }
}

// preview is a self-contained HTML page that draws a message's Block Kit
// JSON ({"blocks": […], "text": …}) the way Slack lays it out, roughly.
func preview(raw []byte) ([]byte, error) {
	var msg struct {
		Blocks []previewBlock `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, err
	}
	textOf := func(v any) string {
		m, _ := v.(map[string]any)
		kind, _ := m["type"].(string)
		s, _ := m["text"].(string)
		return unslack(kind, s)
	}
	var items []previewItem
	for _, b := range msg.Blocks {
		it := previewItem{Kind: b.Type}
		switch b.Type {
		case "header", "section":
			if b.Text != nil {
				it.Text = unslack(b.Text.Type, b.Text.Text)
			}
		case "context":
			var parts []string
			for _, e := range b.Elements {
				parts = append(parts, unslack(e.Type, e.textString()))
			}
			it.Text = strings.Join(parts, " ")
		case "actions":
			for _, e := range b.Elements {
				it.Buttons = append(it.Buttons, struct{ Text, Style string }{textOf(e.Text), e.Style})
			}
		}
		items = append(items, it)
	}
	var out bytes.Buffer
	if err := previewTmpl.Execute(&out, items); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
