package stats_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/stats"
)

// chromium is Debian's browser, which .ci/run installs.
const chromium = "/usr/bin/chromium"

// TestHTMLInChromium opens the page of the known journal in a headless
// Chromium, as the web card's browser tests do, and checks that the page
// writes nothing to the console (no exception, no Content-Security-Policy
// violation) and that its three charts are drawn: every bar has a size on
// the screen.
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; .ci/run installs it (apt-get install -y chromium)", chromium)
		}
		t.Skipf("%s is missing; install it with apt-get install -y chromium", chromium)
	}
	rep := stats.Compute(journal.ReadFile(knownJournal(t)), stats.Options{By: stats.ByHeader})
	page := filepath.Join(t.TempDir(), "stats.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WSURLReadTimeout(2*time.Minute), // a loaded machine can take longer than the 20 s default to start Chromium
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 900))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	// Listen starts the browser; Console then reports what the page
	// writes to the console, exceptions and Content-Security-Policy
	// violations included.
	if err := chromedp.Listen(ctx, func(any) {}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	var mu sync.Mutex
	var console []string
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			mu.Lock()
			console = append(console, m.String())
			mu.Unlock()
		}
	}()
	type drawnT struct {
		Charts, Bars, Sized int
	}
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#chart-wait"))); err != nil {
		t.Fatalf("opening the page in chromium: %v", err)
	}
	drawn, err := chromedp.Run(tctx, chromedp.Evaluate[drawnT](`(() => {
		const bars = [...document.querySelectorAll("svg.chart rect.bar")];
		return {
			Charts: document.querySelectorAll("svg.chart").length,
			Bars: bars.length,
			Sized: bars.filter(b => { const r = b.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
		};
	})()`))
	if err != nil {
		t.Fatalf("reading the charts: %v", err)
	}
	// The known journal by header: Env (decided by the person, the
	// deadline and nobody: 3 segments), Approval and Region (1 each) in
	// the first chart; Env alone in the second (Region's answer did not
	// take the recommendation); the three rows in the third, two bars
	// each.
	if drawn.Charts != 3 || drawn.Bars != 3+1+1+1+3*2 || drawn.Sized != drawn.Bars {
		t.Errorf("drawn: %+v; want 3 charts of 12 bars, every one with a size", drawn)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(console) != 0 {
		t.Errorf("the page wrote to the console: %q", console)
	}
}
