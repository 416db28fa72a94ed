package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sitemapd/sitemapd/internal/changeset"
)

// urlFileConfig is the harness's configuration with one extra_urls file,
// etc/site.urls beside the root, and an IndexNow endpoint that is never
// due, so that what it is owed stays in the state directory.
const urlFileConfig = `extra_urls: [etc/site.urls]
extra_sitemaps: ["https://static.test/app/sitemap.xml"]
notify: {endpoints: [{name: in, kind: indexnow, url: "http://127.0.0.1:9/", key: 0123456789abcdef, schedule: "0 0 1 1 *"}]}
`

func (h *harness) urlFile() string { return filepath.Join(h.dir, "etc", "site.urls") }

// writeURLs writes the URL file through a temporary file renamed over it,
// as deploy tools and editors do, or in place.
func (h *harness) writeURLs(renameOver bool, lines ...string) {
	h.t.Helper()
	data := []byte(strings.Join(lines, "\n") + "\n")
	p := h.urlFile()
	if !renameOver {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	tmp := filepath.Join(filepath.Dir(p), ".site.urls.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		h.t.Fatal(err)
	}
}

// urlSitemapHas reports whether the URL file's sitemap lists s.
func (h *harness) urlSitemapHas(s string) bool {
	b, _ := os.ReadFile(h.path("sitemap-urls-site.xml"))
	return strings.Contains(string(b), "<loc>"+s+"</loc>")
}

// changesSince merges what the publishes since the n-th reported, but for
// the harness's sync pages.
func (h *harness) changesSince(n int) changeset.Changes {
	h.mu.Lock()
	defer h.mu.Unlock()
	var c changeset.Changes
	for _, p := range h.pubs[n:] {
		c.Merge(p.Changes)
	}
	// The harness's sync pages are not the URL file's.
	for _, l := range []*[]string{&c.Added, &c.Changed, &c.Removed} {
		*l = slices.DeleteFunc(*l, func(u string) bool { return strings.Contains(u, "/zz-sync-") })
		slices.Sort(*l)
	}
	return c
}

func (h *harness) published() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pubs)
}

// owedURLs is what the state directory says the endpoint is owed.
func (h *harness) owedURLs() []string {
	var doc struct {
		Endpoints map[string]struct{ URLs []string } `json:"endpoints"`
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, "state", "notify.json"))
	json.Unmarshal(b, &doc)
	return doc.Endpoints["in"].URLs
}

// TestURLFiles runs the daemon with a URL file outside the document root
// on real inotify: an edit in place owes exactly the URLs added, changed
// and removed; a file renamed over it is read; a removal keeps the
// sitemap (and owes nothing) until the file is back; and the files are a
// fresh full build's throughout.
func TestURLFiles(t *testing.T) {
	h := start(t, urlFileConfig)
	h.writeURLs(false, "https://static.test/keep\t2024-01-01", "https://static.test/redate\t2024-01-01", "https://static.test/drop")
	h.waitFor("the URL file published", func() bool { return h.urlSitemapHas("https://static.test/drop") })
	h.sync()
	idx, _ := os.ReadFile(h.path("sitemap_index.xml"))
	for _, want := range []string{"https://static.test/sitemap-urls-site.xml", "https://static.test/app/sitemap.xml"} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("the index lacks %s:\n%s", want, idx)
		}
	}

	// An edit in place.
	n := h.published()
	h.writeURLs(false, "https://static.test/keep\t2024-01-01", "https://static.test/redate\t2024-03-01", "https://static.test/added")
	h.waitFor("the edit published", func() bool { return h.urlSitemapHas("https://static.test/added") })
	h.sync()
	want := changeset.Changes{Added: []string{"https://static.test/added"}, Changed: []string{"https://static.test/redate"}, Removed: []string{"https://static.test/drop"}}
	if got := h.changesSince(n); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the edit owed %v, want %v", got, want)
	}
	if owed := h.owedURLs(); !slices.Contains(owed, "https://static.test/added") || !slices.Contains(owed, "https://static.test/drop") {
		t.Errorf("the state directory owes %v", owed)
	}

	// A file renamed over it.
	n = h.published()
	h.writeURLs(true, "https://static.test/keep\t2024-01-01", "https://static.test/redate\t2024-03-01", "https://static.test/added", "https://static.test/renamed")
	h.waitFor("the renamed file published", func() bool { return h.urlSitemapHas("https://static.test/renamed") })
	h.sync()
	if got := h.changesSince(n); fmt.Sprint(got) != fmt.Sprint(changeset.Changes{Added: []string{"https://static.test/renamed"}}) {
		t.Errorf("the rename owed %v", got)
	}

	// Removed: the sitemap stays as it was, nothing is owed, the error
	// names the file.
	before, _ := os.ReadFile(h.path("sitemap-urls-site.xml"))
	n = h.published()
	os.Remove(h.urlFile())
	h.waitFor("the missing file reported", func() bool {
		for _, e := range h.logs.FilterMessage("publish incomplete").All() {
			if strings.Contains(fmt.Sprint(e.ContextMap()["error"]), h.urlFile()) {
				return true
			}
		}
		return false
	})
	h.sync()
	if after, _ := os.ReadFile(h.path("sitemap-urls-site.xml")); string(after) != string(before) {
		t.Errorf("the sitemap changed when its file went:\n%s", after)
	}
	if got := h.changesSince(n); len(got.Removed) != 0 {
		t.Errorf("the removal owed %v", got)
	}
	h.writeURLs(true, "https://static.test/back")
	h.waitFor("the file back", func() bool { return h.urlSitemapHas("https://static.test/back") })
	h.sync()
	h.checkOracle()
}

// fakeEvents is a fileEvents fed by the test.
type fakeEvents struct {
	ev   chan fsnotify.Event
	errc chan error
}

func (f *fakeEvents) Add(string) error              { return nil }
func (f *fakeEvents) Events() <-chan fsnotify.Event { return f.ev }
func (f *fakeEvents) Errors() <-chan error          { return f.errc }
func (f *fakeEvents) Close() error                  { return nil }

// TestSettleURLFiles: the URL files' events are batched as the root's
// are: one batch per burst, once settled; a steady stream of changes is
// still sent within maxDelay; other files of the directory are not
// reported; an overflow reports every file.
func TestSettleURLFiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const settle, maxDelay = 100 * time.Millisecond, time.Second
		src := &fakeEvents{ev: make(chan fsnotify.Event), errc: make(chan error)}
		files := []string{"/etc/a.urls", "/etc/b.urls"}
		out := make(chan []string)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go settleURLFiles(ctx, src, files, settle, maxDelay, out)
		expect := func(what string, want []string, after time.Duration) {
			t.Helper()
			start := time.Now()
			select {
			case got := <-out:
				if fmt.Sprint(got) != fmt.Sprint(want) || time.Since(start) != after {
					t.Errorf("%s: %v after %v, want %v after %v", what, got, time.Since(start), want, after)
				}
			case <-time.After(time.Hour):
				t.Fatalf("%s: nothing sent", what)
			}
		}
		for _, name := range []string{"/etc/a.urls", "/etc/other", "/etc/a.urls"} {
			src.ev <- fsnotify.Event{Name: name, Op: fsnotify.Write}
		}
		expect("a burst", []string{"/etc/a.urls"}, settle)

		// A change every settle/2 (and a millisecond, so that no change
		// falls at the instant maxDelay ends): never quiet, sent once
		// maxDelay has passed since the first. Stop is looked at before
		// each change, not beside it: a select between a closed stop and
		// a send picks at random, and a change sent after the batch made
		// the overflow's batch come late (1 run in 30).
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				src.ev <- fsnotify.Event{Name: "/etc/b.urls", Op: fsnotify.Create}
				time.Sleep(settle/2 + time.Millisecond)
			}
		}()
		expect("a steady stream", []string{"/etc/b.urls"}, maxDelay)
		close(stop)
		synctest.Wait()
		select { // the stream's last change, if it came after the batch
		case <-out:
		case <-time.After(2 * settle):
		}
		src.errc <- fsnotify.ErrEventOverflow
		expect("an overflow", files, settle)
	})
}
