package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputDirReplaced: output_dir moved away and a new directory made in
// its place while the daemon runs: the next publish is not written blind
// into the moved directory; the daemon says so and serves the new one,
// which then holds the whole site's sitemaps.
func TestOutputDirReplaced(t *testing.T) {
	cfg, root := writeConfig(t, "output_dir: out\nwatch: {settle: 100ms, max_delay: 1s, rescan: 0s}\n")
	out := filepath.Join(filepath.Dir(cfg), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	c.printed(t) // a publish under way when the directory moves may finish in it
	moved := out + ".old"
	if err := os.Rename(out, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "blog", "new.html"), []byte("<title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := base + "/blog/new.html"
	// The whole tree, awaited: a publish writes the group sitemaps before
	// the index, and a loaded machine let the test look in between.
	poll(t, "out/blog/sitemap.xml to list "+url+", and out/ to hold the index and the root's sitemap", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(out, "blog", "sitemap.xml"))
		if err != nil {
			return false, err.Error()
		}
		if _, ok := readURLSet(t, filepath.Join(out, "blog", "sitemap.xml"))[url]; !ok {
			return false, string(b)
		}
		for _, f := range []string{"sitemap_index.xml", "sitemap.xml"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				return false, "the new output directory lacks " + f + ": " + err.Error()
			}
		}
		return true, ""
	})
	if _, listed := readURLSet(t, filepath.Join(moved, "blog", "sitemap.xml"))[url]; listed {
		t.Error("the daemon wrote into the moved directory, out of sight")
	}
	if c.count("output directory moved or replaced; restarting on the directory its path names now") == 0 {
		t.Error("the daemon did not say the output directory was replaced")
	}
	c.stop(t)
}

// TestStateDirReplaced: state_dir moved away and replaced while the daemon
// runs: the ledger is not written blind into the moved directory; a change
// is not published (what it owes could not be recorded), and /healthz
// says why.
func TestStateDirReplaced(t *testing.T) {
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL))
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	state := filepath.Join(filepath.Dir(cfg), "state")
	if err := os.Rename(state, state+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "blog", "new.html"), []byte("<title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	poll(t, "the daemon to say the state directory was replaced", func() (bool, string) {
		return strings.Contains(c.stderr.String(), "was moved or replaced while sitemapd ran"), "it does not"
	})
	if _, listed := readURLSet(t, filepath.Join(root, "blog", "sitemap.xml"))[base+"/blog/new.html"]; listed {
		t.Error("the change was published though its ledger could not be written")
	}
	c.stop(t)
}
