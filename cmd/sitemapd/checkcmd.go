package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/validate"
)

// cmdCheck validates a configuration or, given paths or URLs, sitemaps.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs, path := lookup("check").flagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	configGiven := false
	fs.Visit(func(f *flag.Flag) { configGiven = configGiven || f.Name == "config" || f.Name == "site" })
	site, userName := fs.Lookup("site").Value.String(), fs.Lookup("user").Value.String()
	if fs.Lookup("reach").Value.String() == "true" {
		if fs.NArg() > 0 || userName != "" {
			fmt.Fprintln(stderr, "sitemapd check: -reach checks the site of the configuration: it takes no PATH, URL or -user")
			return ExitUsage
		}
		return cmdReach(*path, site, fs.Lookup("timeout").Value.(flag.Getter).Get().(time.Duration), stdout, stderr)
	}
	if fs.NArg() == 0 {
		return checkConfig(*path, site, userName, stdout, stderr)
	}
	if userName != "" {
		fmt.Fprintln(stderr, "sitemapd check: -user applies to the check of a configuration, not of sitemaps")
		return ExitUsage
	}
	var cfgs []*config.Config
	if configGiven {
		var ok bool
		if _, cfgs, ok = loadSites(*path, site, stderr); !ok {
			return ExitUsage
		}
	}
	status := ExitOK
	for _, arg := range fs.Args() {
		res, err := checkSitemap(arg, cfgs)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", arg, err)
			status = ExitFailure
			continue
		}
		for _, p := range res.Problems {
			fmt.Fprintln(stdout, p)
		}
		if res.Failed() {
			status = ExitFailure
		} else {
			kind := res.Kind
			if kind == "text" {
				kind = "text sitemap"
			}
			fmt.Fprintf(stdout, "%s: ok, a %s of %d entries\n", arg, kind, res.Entries)
		}
	}
	return status
}

// checkSitemap validates one sitemap file or URL. A file's URL, for the
// rule that a sitemap lists only URLs below its own directory, follows from
// the configuration of the site whose output holds it, when one is given.
func checkSitemap(arg string, cfgs []*config.Config) (*validate.Result, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		client := &http.Client{Timeout: 30 * time.Second}
		req, err := http.NewRequest(http.MethodGet, arg, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", "sitemapd/"+versionString()+" (check)")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("HTTP %s", resp.Status)
		}
		return validate.Check(arg, resp.Body, validate.Options{Location: resp.Request.URL.String()})
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var opts validate.Options
	for _, cfg := range cfgs {
		if abs, err := filepath.Abs(arg); err == nil {
			if rel, err := filepath.Rel(cfg.OutputRoot(), abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				opts.Location = siteurl.New(cfg).File(filepath.ToSlash(rel))
				break
			}
		}
	}
	return validate.Check(arg, f, opts)
}
