// Package feedtest reads Atom feeds in tests with an independent reader,
// Python's feedparser (Debian's python3-feedparser), so that what
// sitemapd's feed says is judged by someone else's parser, not its own.
// Where no Python has feedparser the tests that need it skip with what to
// install, except under CI (CI set in the environment), where they fail:
// .ci/run installs it.
package feedtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Feed is what feedparser made of a feed. Times are Unix seconds (0: none
// read).
type Feed struct {
	Bozo    bool    `json:"bozo"`    // feedparser found the document malformed
	Version string  `json:"version"` // "atom10" for Atom 1.0
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Updated int64   `json:"updated"`
	Self    string  `json:"self"` // href of the link rel=self
	Site    string  `json:"site"` // href of the link rel=alternate
	Author  string  `json:"author"`
	Entries []Entry `json:"entries"`
}

// Entry is one entry as feedparser read it.
type Entry struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Updated int64  `json:"updated"`
	Link    string `json:"link"` // href of the link rel=alternate
}

// script prints, as JSON, what feedparser read: times as Unix seconds
// (calendar.timegm of its parsed UTC struct_time).
const script = `
import calendar, json, sys, feedparser
d = feedparser.parse(sys.argv[1])
f = d.feed
def href(links, rel):
    return next((l["href"] for l in links if l.get("rel") == rel), "")
def secs(o):
    return calendar.timegm(o.updated_parsed) if o.get("updated_parsed") else 0
print(json.dumps({
    "bozo": bool(d.bozo), "version": d.version,
    "id": f.get("id", ""), "title": f.get("title", ""), "updated": secs(f),
    "self": href(f.get("links", []), "self"), "site": href(f.get("links", []), "alternate"),
    "author": f.get("author_detail", {}).get("name", ""),
    "entries": [{"id": e.get("id", ""), "title": e.get("title", ""), "updated": secs(e),
                 "link": href(e.get("links", []), "alternate")} for e in d.entries],
}))
`

// python finds a Python that has feedparser: Debian's package installs it
// for /usr/bin/python3, which a PATH of pyenv shims may hide.
func python(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import feedparser").Run() == nil {
			return py
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("python3 with feedparser is missing (apt-get install python3-feedparser; .ci/run installs it)")
	}
	t.Skip("python3 with feedparser is not installed: apt-get install python3-feedparser")
	return ""
}

// Available skips (fails under CI) the test when feedparser is missing.
func Available(t testing.TB) { t.Helper(); python(t) }

// Parse reads the feed file at path with feedparser.
func Parse(t testing.TB, path string) Feed {
	t.Helper()
	out, err := exec.Command(python(t), "-c", script, path).Output()
	if err != nil {
		t.Fatalf("feedparser on %s: %v", path, err)
	}
	var f Feed
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("feedparser's output %q: %v", out, err)
	}
	return f
}
