package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
)

// cmdHealth is `sitemapd health`: it asks the running daemon's /healthz,
// on the configuration's listen address, and exits 0 when it answers 200.
// Every failure exits 1, a bad configuration included: Docker reserves
// exit status 2 of a HEALTHCHECK.
func cmdHealth(args []string, stdout, stderr io.Writer) int {
	var f healthFlags
	path, site, ok := parseConfigFlag("health", args, stderr, f.define)
	if !ok {
		return ExitFailure
	}
	cfg, ok := loadConfig(path, stderr)
	if !ok {
		return ExitFailure
	}
	if cfg.Listen == "" {
		fmt.Fprintf(stderr, "sitemapd health: %s: listen is not set, so the daemon serves no /healthz: set it, e.g. listen: 127.0.0.1:9477\n", path)
		return ExitFailure
	}
	url := "http://" + dialAddr(cfg.Listen) + "/healthz"
	if site != "" {
		// The daemon knows its sites: one not served answers 404.
		url += "?site=" + neturl.QueryEscape(site)
	}
	client := &http.Client{Timeout: f.timeout}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stdout, "unhealthy: %v\n", err)
		return ExitFailure
	}
	req.Header.Set("User-Agent", "sitemapd/"+versionString()+" (health)")
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(stdout, "unhealthy: no answer from %s: %v\n", url, err)
		return ExitFailure
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	summary := strings.TrimSpace(string(body))
	var h struct{ Status, Reason string }
	if json.Unmarshal(body, &h) == nil && h.Status != "" {
		summary = h.Status
		if h.Reason != "" {
			summary += ": " + h.Reason
		}
	}
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stdout, "unhealthy: %s answered %s: %s\n", url, resp.Status, summary)
		return ExitFailure
	}
	fmt.Fprintf(stdout, "%s\n", summary)
	return ExitOK
}

// dialAddr is the address to reach a listen address at: a wildcard host
// (":9477", "0.0.0.0:9477", "[::]:9477") is reached on the loopback.
func dialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.IsUnspecified() && ip.To4() != nil):
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}
