package main

import (
	"slices"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/ping"
)

// buildLedger records, for `sitemapd build`, what search engines are owed
// before the build's files land, in the ledger the daemon sends from, as
// the daemon does: a build by hand (a shrink forced with -force above all)
// tells search engines what it changed when the daemon next runs, instead
// of leaving them to find it out. Without endpoints it does nothing.
type buildLedger struct {
	n   *ping.Notifier
	eng *build.Engine
}

// openBuildLedger opens the ledger of cfg and returns the options that
// make an engine write ahead into it; close it after the build.
func openBuildLedger(cfg *config.Config, log *zap.Logger) (*buildLedger, []build.Option, error) {
	if len(cfg.Notify.Endpoints) == 0 {
		return nil, nil, nil
	}
	n, err := ping.New(cfg, log, ping.WithVersion(versionString()), ping.WithPublishedBefore(pagestore.Exists(cfg.StateDir)))
	if err != nil {
		return nil, nil, err
	}
	l := &buildLedger{n: n}
	// A build is a first build for the ledger: on a site never notified,
	// its pages are the whole site, which the sitemaps announce.
	return l, []build.Option{
		build.WithWriteAhead(l.owe),
		build.WithChangeURLs(func() bool { return n.WantsPages(true) }),
	}, nil
}

func (l *buildLedger) owe(c changeset.Changes, files bool) error {
	var indexes []string
	if files && l.eng != nil {
		indexes = l.eng.IndexURLs()
	}
	return l.n.Note(slices.Concat(c.Added, c.Changed, c.Removed), indexes, files, true)
}

func (l *buildLedger) close() {
	if l != nil {
		l.n.Close()
	}
}
