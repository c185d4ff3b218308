package web_test

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshot writes a screenshot of the card to the PNG file named by
// $ASKUSER_WEB_SCREENSHOT (docs/web-card.png in the repository):
//
//	ASKUSER_WEB_SCREENSHOT=$PWD/docs/web-card.png go test -run TestScreenshot ./responders/web/
func TestScreenshot(t *testing.T) {
	file := os.Getenv("ASKUSER_WEB_SCREENSHOT")
	if file == "" {
		t.Skip("set ASKUSER_WEB_SCREENSHOT to the PNG file to write")
	}
	ctx, _ := browser(t)

	cs := newCardServer(t)
	call := `{"questions":[
		{"id":"env","header":"Env","question":"Where should the release go first?","options":[
			{"label":"staging","description":"Run the smoke tests there first","default":true},
			{"label":"production","description":"Behind the feature flag, 5% of traffic"}]},
		{"id":"regions","header":"Regions","question":"Which regions get it this week?","multi_select":true,"options":[
			{"label":"eu-west","description":"Dublin and Frankfurt","default":true},
			{"label":"us-east","description":"Virginia"},
			{"label":"ap-south","description":"Mumbai"}]}],
		"timeout_seconds":30}`
	cs.ask("demo", call, nil)
	cs.waitPending("demo", 1)
	run(t, ctx,
		chromedp.EmulateViewport(440, 900, chromedp.EmulateScale(2)),
		chromedp.Navigate(cs.pageURL("demo")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q1-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-q1-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-q1-o1`)),
		chromedp.SendKeys(chromedp.CSS(`#a0-q1-other-text`), "the canary pool"),
		chromedp.Blur(chromedp.CSS(`#a0-q1-other-text`)),
		// The countdown shows from nudge_at, 6 s before the deadline.
		chromedp.WaitVisible(chromedp.CSS(`#a0-countdown`)),
		chromedp.Sleep(300*time.Millisecond),
	)
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
