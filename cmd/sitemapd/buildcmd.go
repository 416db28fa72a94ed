package main

import (
	"context"
	"errors"
	"io"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
)

// cmdBuild is `sitemapd build`: one full build of each site (-site: of
// one), or with -dry-run what it would write.
func cmdBuild(args []string, stdout, stderr io.Writer) int {
	var f buildFlags
	return perSite("build", args, stderr, f.define, func(s session) int { return buildSite(s, f, stdout) })
}

// buildSite is `sitemapd build` of one site.
func buildSite(s session, f buildFlags, stdout io.Writer) int {
	cfg, log, ctx := s.cfg, s.log, s.ctx
	if !f.dryRun {
		// A dry run writes nothing, not even a lock file: it may run
		// beside a daemon or another build.
		release, status := lockTree(s, "build")
		if release == nil {
			return status
		}
		defer release()
	}

	var opts []build.Option
	if f.force {
		opts = append(opts, build.WithForce())
	}
	var led *buildLedger
	if f.dryRun {
		opts = append(opts, build.WithDryRun())
	} else {
		var more []build.Option
		var err error
		if led, more, err = openBuildLedger(cfg, log); err != nil {
			log.Error("cannot open what search engines are owed", zap.Error(err))
			return ExitFailure
		}
		defer led.close()
		opts = append(opts, more...)
	}
	eng, err := build.New(cfg, log, opts...)
	if err != nil {
		log.Error("cannot start", zap.Error(err))
		return ExitFailure
	}
	defer eng.Close()
	if led != nil {
		led.eng = eng
	}
	rep, err := eng.Build(ctx)
	if led != nil && err == nil && len(rep.Written) > 0 {
		// The index URLs a ping names are known for sure only now.
		if err := led.n.Note(nil, eng.IndexURLs(), true, false); err != nil {
			log.Error("cannot record what search engines are owed", zap.Error(err))
		}
	}
	if f.dryRun {
		if errors.Is(err, context.Canceled) {
			log.Warn("dry run interrupted")
			return ExitFailure
		}
		code := printPlan(stdout, cfg, eng.Plan(), rep, err)
		printSearchConsole(stdout, cfg, eng.IndexURLs())
		return code
	}
	if rep != nil {
		log.Info("build finished",
			zap.String("root", cfg.Root),
			zap.Int("groups", rep.Groups), zap.Int("urls", rep.URLs),
			zap.Int("sitemaps", rep.Sitemaps), zap.Int("indexes", rep.Indexes),
			zap.Int("written", len(rep.Written)), zap.Int("unchanged", rep.Unchanged),
			zap.Int("removed", len(rep.Removed)), rep.LeftOutField(), rep.Lastmods.Field(), zap.Float64("seconds", rep.Duration.Seconds()))
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			log.Warn("build interrupted; published files are unchanged")
			return ExitFailure
		}
		for _, e := range splitErrors(err) {
			log.Error("build problem", zap.Error(e))
		}
		return ExitFailure
	}
	return ExitOK
}
