package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLedgerFirst: while the ledger (state_dir/notify.json) cannot be
// saved, a change is not published (the sitemap that would tell crawlers
// of it is not written before what IndexNow is owed is on disk), /healthz
// says why, and once the ledger can be saved again the retry publishes the
// change and sends it.
func TestLedgerFirst(t *testing.T) {
	rcv := newReceiver(t)
	addr := freeAddr(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL)+"listen: "+addr+"\n")
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	ledger := filepath.Join(filepath.Dir(cfg), "state", "notify.json")
	if _, err := os.Stat(ledger); err != nil {
		t.Fatalf("no ledger after the first build: %v", err)
	}
	// A directory in its place: its rename fails, as on a full or
	// read-only state_dir, whoever runs the test (root too).
	if err := os.Remove(ledger); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ledger, 0o700); err != nil {
		t.Fatal(err)
	}
	mark := rcv.Mark()
	page := filepath.Join(root, "blog", "new.html")
	if err := os.WriteFile(page, []byte("<title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := base + "/blog/new.html"
	health := func() (int, string) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	poll(t, "/healthz to say the ledger could not be saved", func() (bool, string) {
		code, body := health()
		return code != http.StatusOK && strings.Contains(body, "could not be recorded"), body
	})
	if _, listed := readURLSet(t, filepath.Join(root, "blog", "sitemap.xml"))[url]; listed {
		t.Error("the sitemap lists the new page though the ledger could not record it")
	}
	if err := os.Remove(ledger); err != nil {
		t.Fatal(err)
	}
	rcv.waitFor(t, mark, url)
	poll(t, "blog/sitemap.xml to list "+url, func() (bool, string) {
		_, ok := readURLSet(t, filepath.Join(root, "blog", "sitemap.xml"))[url]
		return ok, "it does not"
	})
	poll(t, "/healthz to be ok again", func() (bool, string) {
		code, body := health()
		return code == http.StatusOK, body
	})
	c.stop(t)
}

// TestLostLedger: the ledger deleted while the daemon is stopped, the page
// store kept, is a ledger lost, not a first run: the pages created,
// changed and deleted meanwhile are sent when it starts again, and nothing
// else.
func TestLostLedger(t *testing.T) {
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL))
	os.WriteFile(filepath.Join(root, "blog", "b.html"), []byte("<title>b</title>"), 0o644)
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	c.stop(t)
	ledger := filepath.Join(filepath.Dir(cfg), "state", "notify.json")
	if err := os.Remove(ledger); err != nil {
		t.Fatal(err)
	}
	writeFileAt(t, filepath.Join(root, "blog", "new.html"), []byte("<title>new</title>"), time.Now())
	writeFileAt(t, filepath.Join(root, "blog", "a.html"), []byte("<title>changed</title>"), time.Now().Add(time.Minute))
	os.Remove(filepath.Join(root, "blog", "b.html"))
	mark := rcv.Mark()
	c = startChild(t, cfg)
	c.expect(t, "READY=1")
	want := []string{base + "/blog/a.html", base + "/blog/b.html", base + "/blog/new.html"}
	rcv.waitFor(t, mark, want...)
	got := rcv.URLs(mark)
	slices.Sort(got)
	if !slices.Equal(slices.Compact(got), want) {
		t.Errorf("sent %v, want only %v", got, want)
	}
	c.stop(t)
}
