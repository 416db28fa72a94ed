package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// cmdPing sends what the state directory says the endpoints are owed, and
// reports per endpoint. It cannot run beside `sitemapd run` on the same
// state: the daemon sends on its schedule.
func cmdPing(args []string, stdout, stderr io.Writer) int {
	var f pingFlags
	return perSite("ping", args, stderr, f.define, func(s session) int { return pingSite(s, f, stdout) })
}

// pingSite is `sitemapd ping` of one site.
func pingSite(s session, f pingFlags, stdout io.Writer) int {
	cfg, log, ctx := s.cfg, s.log, s.ctx
	if len(cfg.Notify.Endpoints) == 0 {
		fmt.Fprintf(stdout, "%s: no notify endpoints configured\n", siteLabel(s))
		return ExitOK
	}
	hist := &pingHistory{log: log}
	n, err := ping.New(cfg, log, ping.WithVersion(versionString()), ping.WithObserver(hist.observe))
	if err != nil {
		if errors.Is(err, ping.ErrLocked) {
			err = fmt.Errorf("%w: sitemapd run sends on its schedule; stop it to send by hand", err)
		}
		log.Error("cannot start", zap.Error(err))
		return ExitFailure
	}
	defer n.Close()
	if f.now {
		indexes, err := publishedIndexes(cfg)
		if err != nil {
			log.Error("cannot find the published index", zap.Error(err))
			return ExitFailure
		}
		if err := n.OweIndex(indexes); err != nil {
			log.Error("cannot record the ping", zap.Error(err))
			return ExitFailure
		}
	}
	if f.dryRun {
		plan := n.Plan()
		for _, r := range plan {
			if r.URLs != nil {
				fmt.Fprintf(stdout, "%s: %s %s with %d URLs\n", r.Endpoint, r.Method, r.URL, len(r.URLs))
				for _, u := range r.URLs {
					fmt.Fprintf(stdout, "\t%s\n", u)
				}
			} else {
				fmt.Fprintf(stdout, "%s: %s %s\n", r.Endpoint, r.Method, r.URL)
			}
		}
		if len(plan) == 0 {
			fmt.Fprintln(stdout, "nothing is owed")
		}
		printHolds(stdout, n.Stats(), time.Now())
		return ExitOK
	}
	hist.open(cfg.StateDir) // the notifier holds the state directory now
	defer hist.close()
	status := ExitOK
	for _, r := range n.Flush(ctx) {
		line := fmt.Sprintf("%s: sent %d, owed %d", r.Endpoint, r.Sent, r.Owed)
		if r.Err != nil {
			line += ": " + r.Err.Error()
			status = ExitFailure
		}
		fmt.Fprintln(stdout, line)
	}
	return status
}

// publishedIndexes returns the URLs of the index files on disk.
func publishedIndexes(cfg *config.Config) ([]string, error) {
	dir := cfg.OutputRoot()
	loc := siteurl.New(cfg)
	var urls []string
	out := cfg.OutputNames()
	for i := 1; ; i++ {
		name := out.Out(outname.Part(out.Index(), i))
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			if i == 1 {
				return nil, fmt.Errorf("no index at %s: run sitemapd build first", filepath.Join(dir, name))
			}
			return urls, nil
		}
		urls = append(urls, loc.File(name))
	}
}
