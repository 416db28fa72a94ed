package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/reach"
)

// `sitemapd check -reach` fetches, through base_url, what sitemapd tells
// search engines to fetch, and compares it with what it wrote (package
// reach, which the daemon's selfcheck runs too): one line per URL, every
// sitemap the index lists, redirects followed as engines follow them
// (each a note), no page.

// reachSite runs every check of one site, printing a line each, and
// reports whether all passed.
func reachSite(ctx context.Context, cfg *config.Config, timeout time.Duration, out io.Writer) bool {
	results := reach.New(cfg, reach.Options{Timeout: timeout, UserAgent: "sitemapd/" + versionString() + " (check -reach)", Sitemaps: -1}).Check(ctx)
	passed := true
	for _, r := range results {
		for _, h := range r.Hops {
			if r.Problem != reach.Redirect {
				fmt.Fprintf(out, "note  %s %s: redirected, %s\n", r.What, r.URL, h)
			}
		}
		if r.Problem == reach.OK {
			fmt.Fprintf(out, "ok    %s %s: %s\n", r.What, r.URL, r.Detail)
			continue
		}
		passed = false
		fmt.Fprintf(out, "FAIL  %s %s %s: %s\n", r.What, r.URL, r.Detail, r.Fix)
	}
	return passed
}

// cmdReach is `sitemapd check -reach`: every site's checks, the worst
// status.
func cmdReach(path, site string, timeout time.Duration, stdout, stderr io.Writer) int {
	proc, sites, ok := loadSites(path, site, stderr)
	if !ok {
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	status := ExitOK
	for _, cfg := range sites {
		if proc.Multi {
			fmt.Fprintf(stdout, "site %s (%s)\n", cfg.Name, cfg.BaseURL)
		}
		if !reachSite(ctx, cfg, timeout, stdout) {
			status = ExitFailure
		}
	}
	return status
}
