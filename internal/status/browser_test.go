package status_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitemapd/sitemapd/internal/status"
)

// chromium finds the browser: Debian's chromium package. Outside CI a
// machine without it skips the test; in CI (CI=true) that is a failure,
// since .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: the browser test must run in CI (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the browser test is skipped")
	return ""
}

// shotsDir is where the browser test keeps its screenshots, the test
// artefacts of the page at desktop and phone widths: testdata/screenshots
// of this package, in the checkout (so CI's workspace, or a developer's
// clone, keeps them after the test; testdata/.gitignore keeps them out of
// git), each run's replacing the last's. Its absolute path is logged.
func shotsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "screenshots"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Fatalf("the screenshots' directory: %v", err)
	}
	t.Logf("screenshots are kept in %s", dir)
	return dir
}

// trouble collects what the browser reports going wrong: console errors
// and warnings, exceptions, failed requests, answers of 400 and more,
// and requests anywhere but the test server.
type trouble struct {
	host string // the test server's host:port
	mu   sync.Mutex
	seen []string
}

func (tr *trouble) add(format string, args ...any) {
	tr.mu.Lock()
	tr.seen = append(tr.seen, fmt.Sprintf(format, args...))
	tr.mu.Unlock()
}

func (tr *trouble) listen(ev any) {
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			tr.add("console %s: %s", e.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		tr.add("exception: %s", e.ExceptionDetails.Text)
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
			tr.add("log %s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		if u, err := url.Parse(e.Request.URL); err != nil || u.Host != tr.host {
			tr.add("request to %s", e.Request.URL)
		}
	case *network.EventLoadingFailed:
		tr.add("request failed: %s %s", e.ErrorText, e.BlockedReason)
	case *network.EventResponseReceived:
		if e.Response.Status >= 400 {
			tr.add("answer %d for %s", e.Response.Status, e.Response.URL)
		}
	}
}

func (tr *trouble) take() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := tr.seen
	tr.seen = nil
	return out
}

// TestInBrowser loads the status page of a scripted month in headless
// Chromium: the overview links to the site, the page loads with nothing
// reported wrong, the charts have their bars, a group opens on a click,
// the accessibility checks of testdata/a11y.js pass at desktop and phone
// widths, and screenshots of both are kept for people to look at
// (shotsDir: testdata/screenshots, named in the test log).
func TestInBrowser(t *testing.T) {
	exe := chromium(t)
	a11y, err := os.ReadFile(filepath.Join("testdata", "a11y.js"))
	if err != nil {
		t.Fatal(err)
	}

	c := newClock(t0)
	h, _ := open(t, t.TempDir(), c)
	script := month()
	script.record(t, h, c)
	blog := sample(h.Activity())
	handler := status.NewHandler(multi(blog, shop()), nil)
	handler.SetClock(c.Now)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r) // and the browser test reports the request
			return
		}
		handler.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)

	tr := &trouble{host: ln.Addr().String()}
	profile := t.TempDir() // removed after the browser is gone (cleanups run last first)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		// No name resolves to anywhere but this machine.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(tr.listen), chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		chromedp.Cancel(ctx)
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser, without a timeout (see chromedp.Run)
		t.Fatalf("start %s: %v", exe, err)
	}
	run := func(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(actx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(t *testing.T, js string) any {
		t.Helper()
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(actx, chromedp.Evaluate[any](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return v
	}
	number := func(t *testing.T, js string) int {
		t.Helper()
		f, ok := eval(t, js).(float64)
		if !ok {
			t.Fatalf("%s is not a number", js)
		}
		return int(f)
	}
	checkTrouble := func(t *testing.T, when string) {
		t.Helper()
		for _, s := range tr.take() {
			t.Errorf("%s: %s", when, s)
		}
	}

	// The overview lists both sites and links to each.
	run(t, "load the overview", chromedp.Navigate(srv.URL+"/status"), chromedp.WaitVisible(chromedp.CSS(`a[href="?site=blog"]`)))
	if n := number(t, `document.querySelectorAll('tbody tr').length`); n != 2 {
		t.Errorf("the overview lists %d sites, want 2", n)
	}
	run(t, "follow the link to a site", chromedp.Click(chromedp.CSS(`a[href="?site=blog"]`)), chromedp.WaitVisible(chromedp.CSS(`a[href="/status"]`)))
	if got := eval(t, `location.search`); got != "?site=blog" {
		t.Errorf("the link led to %v", got)
	}
	checkTrouble(t, "loading the pages")

	// The charts: a bar per hour and per day, and one per endpoint and
	// answer, holding the counts the script adds up to.
	first := t0.Truncate(time.Hour).Add(-(status.Hours - 1) * time.Hour)
	y, m, d := t0.Date()
	firstDay := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(status.Days - 1))
	wantHour, wantDay := 0, 0
	for _, p := range script.publishes {
		if !p.At.Before(first) {
			wantHour += p.Changes()
		}
		if !p.At.Before(firstDay) {
			wantDay += p.Changes()
		}
	}
	wantSent := 0
	for _, s := range script.submissions {
		if !s.At.Before(firstDay) {
			wantSent++
		}
	}
	for _, tc := range []struct {
		chart      string
		bars, data int
	}{
		{"hourly", status.Hours, wantHour},
		{"daily", status.Days, wantDay},
		{"sent", wantSentBars(blog), wantSent},
	} {
		sel := fmt.Sprintf(`svg[aria-labelledby^="%s-"] rect[data-count]`, tc.chart)
		if n := number(t, fmt.Sprintf(`document.querySelectorAll('%s').length`, sel)); n != tc.bars {
			t.Errorf("%s chart: %d bars, want %d", tc.chart, n, tc.bars)
		}
		sum := number(t, fmt.Sprintf(`[...document.querySelectorAll('%s')].reduce((s, r) => s + Number(r.dataset.count), 0)`, sel))
		if sum != tc.data {
			t.Errorf("%s chart: its bars count %d, want %d", tc.chart, sum, tc.data)
		}
		// A bar with a count is drawn: it has a height on the screen.
		flat := number(t, fmt.Sprintf(`[...document.querySelectorAll('%s')].filter(r => r.dataset.count > 0 && !(r.getBoundingClientRect().height > 0 && r.getBoundingClientRect().width > 0)).length`, sel))
		if flat != 0 {
			t.Errorf("%s chart: %d bars with a count are not drawn", tc.chart, flat)
		}
	}

	// A group opens on a click, showing its examples.
	const group = `details.group`
	if eval(t, `document.querySelector('`+group+`').open`) != false {
		t.Fatal("the first group is open before a click")
	}
	if n := number(t, `[...document.querySelectorAll('`+group+` a')].filter(a => a.checkVisibility()).length`); n != 0 {
		t.Errorf("%d examples show in closed groups", n)
	}
	run(t, "open a group", chromedp.Click(chromedp.CSS(group+` > summary`)))
	if eval(t, `document.querySelector('`+group+`').open`) != true {
		t.Fatal("a click did not open the group")
	}
	if n := number(t, `[...document.querySelector('`+group+`').querySelectorAll('a')].filter(a => a.checkVisibility()).length`); n != 5 {
		t.Errorf("the open group shows %d example links, want 5 (3 of noindex's 4, both canonical's)", n)
	}
	shots := shotsDir(t)
	for _, tc := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"desktop", 1280, 900, false},
		{"phone", 390, 844, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []chromedp.EmulateViewportOption{}
			if tc.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
			}
			run(t, "load at "+tc.name+" width", chromedp.EmulateViewport(tc.width, tc.height, opts...),
				chromedp.Navigate(srv.URL+"/status?site=blog"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
			checkTrouble(t, "reloading at "+tc.name+" width")
			if w := number(t, `document.documentElement.scrollWidth`); w > int(tc.width) {
				t.Errorf("the page is %d px wide in a %d px viewport: it scrolls sideways", w, tc.width)
			}
			// Screenshots of the page as loaded, one group opened by a
			// click: the whole page, and its first screen (what one sees
			// first, and a size a person can look at).
			run(t, "open a group", chromedp.Click(chromedp.CSS(group+` > summary`)))
			actx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			for _, shot := range []struct {
				suffix string
				take   chromedp.Action[[]byte]
			}{{"", chromedp.FullScreenshot(100)}, {"-top", chromedp.CaptureScreenshot()}} {
				png, err := chromedp.Run(actx, shot.take)
				if err != nil {
					t.Fatal(err)
				}
				name := "status-" + tc.name + shot.suffix + ".png"
				path := filepath.Join(shots, name)
				if err := os.WriteFile(path, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot kept: %s", path)
			}
			// The accessibility checks, with every group and table open.
			eval(t, `document.querySelectorAll('details').forEach(d => d.open = true)`)
			problems, ok := eval(t, string(a11y)).([]any)
			if !ok {
				t.Fatal("the accessibility check did not return a list")
			}
			for _, p := range problems {
				t.Errorf("accessibility: %v", p)
			}
		})
	}
	checkTrouble(t, "the end")

	// The checker finds what it looks for: a page spoilt on purpose fails.
	eval(t, `document.querySelector('h2').insertAdjacentHTML('afterend',
		'<h4>skipped</h4><p id="pale">too pale</p><svg role="img"></svg><table><tr><td>x</td></tr></table>');
		document.getElementById('pale').style.color = '#aaa'`)
	problems, _ := eval(t, string(a11y)).([]any)
	want := []string{"heading H4", "contrast", "svg without an accessible name", "table without column headers"}
	for _, w := range want {
		found := false
		for _, p := range problems {
			found = found || strings.Contains(fmt.Sprint(p), w)
		}
		if !found {
			t.Errorf("the accessibility check missed %q on a spoilt page; it found %v", w, problems)
		}
	}
}
