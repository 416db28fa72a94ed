package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// fleetSays runs sitemapd fleet as server i and reports whether its
// output holds want.
func (f *fleetRun) fleetSays(i int, want string) (bool, string) {
	code, out, errOut := runCLI("fleet", "-config", filepath.Join(f.dir, f.servers[i].name+".yaml"))
	return code == ExitOK && strings.Contains(out, want), out + errOut
}

// midDeploy: a change deployed to web1 alone. sitemapd fleet on web2
// says its sitemaps differ from web1's, mid-deploy; once the change
// reaches every copy, that they match again.
func (f *fleetRun) midDeploy() {
	t := f.t
	first := f.servers[0]
	before := digestOf(t, first.root)
	page := bytes.Replace(f.old, []byte("<h1>"), []byte("<h1>Mid-deploy: "), 1)
	if err := os.WriteFile(filepath.Join(first.root, fleetEdited), page, 0o644); err != nil {
		t.Fatal(err)
	}
	poll(t, first.name+" to publish the change", func() (bool, string) { return digestOf(t, first.root) != before, "" })
	poll(t, "sitemapd fleet on web2 to say web1 differs", func() (bool, string) {
		return f.fleetSays(1, "sitemaps: this server's differ from web1's: mid-deploy")
	})
	for _, s := range f.servers[1:] {
		if err := os.WriteFile(filepath.Join(s.root, fleetEdited), page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	identical(t, f.servers)
	poll(t, "sitemapd fleet on web2 to say they match", func() (bool, string) {
		return f.fleetSays(1, "sitemaps: this server's match web1, web3's\n")
	})
}
