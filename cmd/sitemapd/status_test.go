package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusCommand: `sitemapd status` prints the running daemon's status
// page as text, a submission with its HTTP status among it, and exits 0;
// it shows no path of the server and no key. Without listen, or with
// nothing listening, it says why and exits 1; bad usage or configuration
// exits 2.
func TestStatusCommand(t *testing.T) {
	rcv := newReceiver(t)
	addr := freeAddr(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL)+"listen: "+addr+"\n")
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	mark := rcv.Mark()
	if err := os.WriteFile(filepath.Join(root, "blog", "new.html"), []byte("<title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	rcv.waitFor(t, mark, base+"/blog/new.html")

	var out string
	poll(t, "sitemapd status to show the submission", func() (bool, string) {
		code, o, stderr := runCLI("status", "-config", cfg)
		out = o
		i := strings.Index(o, "recent submissions")
		return code == ExitOK && i >= 0 && strings.Contains(o[i:], "receiver") && strings.Contains(o[i:], "HTTP 200"),
			fmt.Sprintf("exit %d: %s%s", code, o, stderr)
	})
	for _, want := range []string{"https://static.test/", "health: ok", "listed: 3 URLs", "last answer HTTP 200"} {
		if !strings.Contains(out, want) {
			t.Errorf("sitemapd status lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{filepath.Dir(cfg), "0123456789abcdef"} {
		if strings.Contains(out, secret) {
			t.Errorf("sitemapd status shows %q:\n%s", secret, out)
		}
	}
	if code, _, stderr := runCLI("status", "-config", cfg, "-site", "nope"); code != ExitUsage || !strings.Contains(stderr, `no site is named "nope"`) {
		t.Errorf("-site nope: exit %d, %q", code, stderr)
	}
	c.stop(t)
	if code, _, stderr := runCLI("status", "-config", cfg, "-timeout", "2s"); code != ExitFailure || !strings.Contains(stderr, "no answer from http://"+addr+"/status") {
		t.Errorf("daemon stopped: exit %d, %q", code, stderr)
	}

	none, _ := siteConfig(t, "")
	if code, out, stderr := runCLI("status", "-config", none); code != ExitFailure || out != "" || !strings.Contains(stderr, none+": listen is not set") {
		t.Errorf("no listen: exit %d, %q %q", code, out, stderr)
	}
	bad, _ := siteConfig(t, "listen: nope\n")
	if code, _, stderr := runCLI("status", "-config", bad); code != ExitUsage || !strings.Contains(stderr, "listen:") {
		t.Errorf("bad config: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI("status", "-nope"); code != ExitUsage {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("status", "-config", none, "extra"); code != ExitUsage {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
}
