package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"
)

type statusFlags struct{ timeout time.Duration }

func (f *statusFlags) define(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long to wait for the answer")
}

// maxStatusText bounds what `sitemapd status` prints of an answer: the
// text of a site is some kilobytes, that of thousands of groups some
// hundreds.
const maxStatusText = 8 << 20

// cmdStatus is `sitemapd status`: it prints the running daemon's status
// page as text (/status?format=text, on the configuration's listen
// address). It exits 0 when it printed it, whatever the health it shows
// (`sitemapd health` answers that); 1 when the daemon did not answer, or
// listen is not set; 2 on bad usage or configuration.
//
// Without listen, nothing is read from state_dir instead: status.Open
// creates the directory, and moves a damaged history aside, which a
// command that only looks must not do beside a running daemon.
func cmdStatus(args []string, stdout, stderr io.Writer) int {
	var f statusFlags
	path, site, ok := parseConfigFlag("status", args, stderr, f.define)
	if !ok {
		return ExitUsage
	}
	proc, ok := loadConfig(path, stderr)
	if !ok {
		return ExitUsage
	}
	if site != "" {
		if _, ok := selectSites(proc, site, stderr); !ok {
			return ExitUsage
		}
	}
	if proc.Listen == "" {
		fmt.Fprintf(stderr, "sitemapd status: %s: listen is not set, so the daemon serves no /status to ask: set it, e.g. listen: 127.0.0.1:9477, and restart the daemon\n", path)
		return ExitFailure
	}
	url := "http://" + dialAddr(proc.Listen) + "/status?format=text"
	if site != "" {
		url += "&site=" + neturl.QueryEscape(site)
	}
	client := &http.Client{Timeout: f.timeout}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sitemapd status: %v\n", err)
		return ExitFailure
	}
	req.Header.Set("User-Agent", "sitemapd/"+versionString()+" (status)")
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "sitemapd status: no answer from %s (is the daemon running?): %v\n", url, err)
		return ExitFailure
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStatusText))
	if err != nil {
		fmt.Fprintf(stderr, "sitemapd status: read the answer of %s: %v\n", url, err)
		return ExitFailure
	}
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "sitemapd status: %s answered %s: %s\n", url, resp.Status, strings.TrimSpace(string(body)))
		return ExitFailure
	}
	if _, err := stdout.Write(body); err != nil {
		return ExitFailure
	}
	return ExitOK
}
