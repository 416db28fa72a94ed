package daemon

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// settleNotifier waits until nothing is owed (state_dir/notify.json) and
// two more turns of the schedule, so that whatever was to be sent was.
func (h *harness) settleNotifier() {
	h.t.Helper()
	statePath := filepath.Join(h.dir, "state", "notify.json")
	h.waitFor("everything owed delivered", func() bool {
		var doc struct {
			Endpoints map[string]struct{ URLs []string } `json:"endpoints"`
		}
		b, err := os.ReadFile(statePath)
		if err != nil || json.Unmarshal(b, &doc) != nil {
			return false
		}
		return len(doc.Endpoints["in"].URLs) == 0
	})
	time.Sleep(2500 * time.Millisecond)
}

// release writes a release of the site: each page a title and a paragraph
// of its own, so that the template model learnt from them finds their
// text to be content.
func release(t *testing.T, dir string, pages map[string]string) {
	t.Helper()
	for rel, text := range pages {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("<!doctype html><html><head><title>%s</title></head><body><main><h1>%s</h1><p>%s</p></main></body></html>\n", rel, rel, text)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func releasePages() map[string]string {
	pages := map[string]string{}
	for _, p := range []string{"index.html", "a/p1.html", "a/p2.html", "a/p3.html", "a/p4.html", "b/q1.html", "b/q2.html", "b/q3.html"} {
		pages[p] = "The text of " + p + ", which says something of its own about " + strings.TrimSuffix(filepath.Base(p), ".html") + "."
	}
	return pages
}

// indexEntries reads an index: each sitemap's lastmod by its loc.
func indexEntries(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sitemaps []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, s := range doc.Sitemaps {
		out[s.Loc] = s.LastMod
	}
	return out
}

// TestReleaseSwapOwesWhatChanged swaps current -> releases/1 for a new
// release (ln -s + mv -T), which holds the pages anew (new inodes, fresh
// mtimes) and none of sitemapd's files, with the daemon running or
// stopped across the swap. What is owed to IndexNow is what the page
// store says changed: nothing for the same bytes, exactly the page whose
// text changed, exactly the page removed. And the index lists each
// sitemap written again with the bytes it had with the lastmod it had.
func TestReleaseSwapOwesWhatChanged(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(pages map[string]string)
		want    []string
		changed string // the group's sitemap whose index lastmod may move
	}{
		{name: "same", edit: func(map[string]string) {}},
		{name: "changed", edit: func(p map[string]string) { p["b/q2.html"] = "Another text altogether, rewritten for the new release." },
			want: []string{"https://static.test/b/q2.html"}, changed: "https://static.test/b/sitemap.xml"},
		{name: "removed", edit: func(p map[string]string) { delete(p, "a/p3.html") },
			want: []string{"https://static.test/a/p3.html"}, changed: "https://static.test/a/sitemap.xml"},
		{name: "section dropped", edit: func(p map[string]string) {
			for rel := range p {
				if strings.HasPrefix(rel, "b/") {
					delete(p, rel)
				}
			}
		}, want: []string{"https://static.test/b/q1.html", "https://static.test/b/q2.html", "https://static.test/b/q3.html"}, changed: "https://static.test/b/sitemap.xml"},
	}
	for _, restart := range []bool{false, true} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/restart=%v", tc.name, restart), func(t *testing.T) {
				rc := newReceiver(t)
				dir := t.TempDir()
				rel1, rel2 := filepath.Join(dir, "releases/1"), filepath.Join(dir, "releases/2")
				release(t, rel1, releasePages())
				current := filepath.Join(dir, "current")
				os.Symlink("releases/1", current)
				h := &harness{t: t, dir: dir, root: current, cfgPath: filepath.Join(dir, "sitemapd.yaml"), reload: make(chan struct{}, 1)}
				cfg := strings.Replace(testConfig, "root: root", "root: current", 1) + rc.notify()
				os.WriteFile(h.cfgPath, []byte(cfg), 0o644)
				h.run()
				h.settleNotifier()
				before := indexEntries(t, filepath.Join(rel1, "sitemap_index.xml"))
				indexBefore, _ := os.ReadFile(filepath.Join(rel1, "sitemap_index.xml"))
				// Sitemaps written in the same second as the new release's
				// would hide a moved lastmod.
				time.Sleep(1100 * time.Millisecond)

				pages := releasePages()
				tc.edit(pages)
				release(t, rel2, pages)
				if restart {
					h.stop()
				}
				mark := rc.Mark()
				os.Symlink("releases/2", current+".tmp")
				if out, err := exec.Command("mv", "-T", current+".tmp", current).CombinedOutput(); err != nil {
					t.Fatalf("mv -T: %v: %s", err, out)
				}
				if restart {
					h.launch() // no sync: its page would move the root's sitemap
				}
				h.waitFor("releases/2 published", func() bool { return fileExists(filepath.Join(rel2, "sitemap_index.xml")) })
				after := indexEntries(t, filepath.Join(rel2, "sitemap_index.xml"))
				for loc, lm := range before {
					if loc != tc.changed && after[loc] != lm {
						t.Errorf("index lastmod of %s moved from %s to %s", loc, lm, after[loc])
					}
				}
				if _, ok := after[tc.changed]; len(after)+btoi(tc.changed != "" && !ok) != len(before) {
					t.Errorf("index lists %v, before %v", after, before)
				}
				if indexAfter, _ := os.ReadFile(filepath.Join(rel2, "sitemap_index.xml")); tc.changed == "" && string(indexAfter) != string(indexBefore) {
					t.Errorf("index bytes changed:\n%s\nbefore:\n%s", indexAfter, indexBefore)
				}
				h.sync()
				h.settleNotifier()
				got := rc.pages(mark)
				for _, u := range tc.want {
					if got[u] != 1 {
						t.Errorf("%s sent %d times, want once", u, got[u])
					}
				}
				for u, n := range got {
					if !slices.Contains(tc.want, u) {
						t.Errorf("%s sent %d times, but did not change", u, n)
					}
				}
				h.checkOracle()
			})
		}
	}
}

// urlLastmods reads a sitemap: each URL's lastmod by its loc.
func urlLastmods(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, u := range doc.URLs {
		out[u.Loc] = u.LastMod
	}
	return out
}

// TestPageBeingWrittenIsNoVersion truncates a known page and writes it
// back in chunks over several times watch.max_delay (as cp over a live
// tree does), so that batches are cut while it is half written. No half of
// it is taken as a version: written back with the same bytes, no lastmod
// moves and nothing is sent; with another text, exactly that page is
// sent, once.
//
// The watcher takes a file quiet for watch.settle as written whole (its
// contract): the writer's pauses must stay under settle, however late a
// busy machine wakes the writer. Pauses of 150 ms were measured at up to
// 223 ms on a loaded machine (load 20 on 2 cores), against a settle of
// 250 ms then: one stretched past it has the half page rightly taken as a
// version, and a lastmod moved. Settle is 1 s here, near 7 times the
// pause (max_delay, at least settle, 1 s too), and the page is written
// over 4.5 s, so that batches are still cut while it is half written.
func TestPageBeingWrittenIsNoVersion(t *testing.T) {
	for _, same := range []bool{true, false} {
		t.Run(fmt.Sprintf("same=%v", same), func(t *testing.T) {
			rc := newReceiver(t)
			cfg := strings.Replace(testConfig, "watch: {settle: 100ms, max_delay: 1s, rescan: 0s}", "watch: {settle: 1s, max_delay: 1s, rescan: 0s}", 1)
			h := startConfig(t, cfg+rc.notify())
			pages := releasePages()
			for i := range 40 { // a page of some length, to be written in chunks
				pages["a/p2.html"] += fmt.Sprintf(" Sentence %d of the second page goes on about its subject.", i)
			}
			release(t, h.root, pages)
			h.sync()
			h.settleNotifier()
			sitemap := h.path("a/sitemap.xml")
			before := urlLastmods(t, sitemap)
			time.Sleep(1100 * time.Millisecond) // a lastmod moved would show
			mark := rc.Mark()

			p := h.path("a/p2.html")
			final, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !same {
				final = []byte(strings.Replace(string(final), "Sentence 39", "A last sentence, new", 1))
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			const chunks = 30
			size := (len(final) + chunks - 1) / chunks
			for i := 0; i < len(final); i += size {
				time.Sleep(150 * time.Millisecond) // far less than settle: it is busy at each cut
				if _, err := f.Write(final[i:min(i+size, len(final))]); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			h.sync()
			h.settleNotifier()

			after := urlLastmods(t, sitemap)
			const url = "https://static.test/a/p2.html"
			for loc, lm := range before {
				if moved := after[loc] != lm; moved != (!same && loc == url) {
					t.Errorf("lastmod of %s: %s, before %s", loc, after[loc], lm)
				}
			}
			got := rc.pages(mark)
			want := map[string]int{}
			if !same {
				want[url] = 1
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("sent %v, want %v", got, want)
			}
			h.checkOracle()
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
