package main

// What `build -dry-run` says of each searchconsole endpoint: which
// sitemaps the daemon would submit, and Google's view of those it did, as
// the state directory keeps it (no call is made).

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/searchconsole"
)

// printSearchConsole prints a section per searchconsole endpoint: each
// sitemap the site announces (indexes, robots.txt's Sitemap lines) that
// the property holds, submitted or to be, with Google's last view.
func printSearchConsole(w io.Writer, cfg *config.Config, indexes []string) {
	announce := append([]string{}, indexes...)
	if data, err := safefile.ReadFile(filepath.Join(cfg.OutputRoot(), outname.RobotsName), 500<<10, safefile.Follow); err == nil {
		announce = append(announce, robots.Sitemaps(data)...)
	}
	for _, ep := range cfg.Notify.Endpoints {
		if ep.Kind != config.SearchConsole {
			continue
		}
		var in []string
		for _, u := range announce {
			if ep.Covers(u) {
				in = append(in, u)
			}
		}
		st := searchconsole.ReadStatus(cfg.StateDir, ep.Name, ep.Property, in)
		fmt.Fprintf(w, "\nSearch Console, endpoint %s (property %s):\n", ep.Name, ep.Property)
		if len(st.Sitemaps) == 0 {
			fmt.Fprintln(w, "  no sitemap to submit")
		}
		for _, sm := range st.Sitemaps {
			fmt.Fprintf(w, "  %s  %s\n", sm.URL, consoleLine(sm, in))
		}
	}
}

// consoleLine says what the daemon does or did with one sitemap, and
// what Google last said of it.
func consoleLine(sm searchconsole.Sitemap, announced []string) string {
	var parts []string
	switch {
	case !contains(announced, sm.URL):
		parts = append(parts, "no longer announced: the daemon would delete it from the property")
	case sm.Submitted.IsZero():
		parts = append(parts, "the daemon would submit it")
	default:
		parts = append(parts, "submitted "+sm.Submitted.UTC().Format(time.RFC3339))
	}
	v := sm.View
	if v == nil {
		return strings.Join(parts, "; ")
	}
	g := "Google, " + v.Polled.UTC().Format(time.RFC3339) + ": "
	if v.LastDownloaded.IsZero() {
		g += "not downloaded yet"
	} else {
		g += "downloaded " + v.LastDownloaded.UTC().Format(time.RFC3339)
	}
	if v.Pending {
		g += ", pending"
	}
	g += fmt.Sprintf(", %d errors, %d warnings", v.Errors, v.Warnings)
	for _, c := range v.Contents {
		g += fmt.Sprintf(", %d %s URLs", c.Submitted, c.Type)
	}
	return strings.Join(append(parts, g), "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
