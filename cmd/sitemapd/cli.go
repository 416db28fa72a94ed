package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/validate"
)

// Exit statuses, as the usage text and docs/operations.md state them.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // a runtime failure: something could not be read or written
	ExitUsage   = 2 // bad usage or bad configuration
)

const defaultConfig = "/etc/sitemapd/sitemapd.yaml"

const usage = `usage: sitemapd COMMAND [flags]

commands:
  run      -config FILE   build, then watch the document root and keep every sitemap true
  build    -config FILE [-force] [-dry-run]
                          build every sitemap and the index once, then exit;
                          -force publishes a shrink the guard would refuse;
                          -dry-run prints what it would write, remove and refuse
  check    -config FILE [-user NAME]
                          validate a configuration file, and find what would
                          keep the service from starting: its listen address
                          taken, directories NAME may not write (exit 1)
  check    [-config FILE] PATH|URL...
                          validate sitemaps or indexes against the protocol
  check    -config FILE -reach [-timeout D]
                          fetch through base_url what search engines fetch
  ping     -config FILE [-now] [-dry-run]
                          send search engines what they are owed now; -now also
                          pings the published index; -dry-run only prints
  health   -config FILE   exit 0 if the running daemon's /healthz answers 200
  status   -config FILE   print the running daemon's status page (/status) as text
  fleet    -config FILE   print the site's fleet as etcd holds it: servers, leader
  version                 print the version, commit and Go version
  help     [COMMAND]      print this, or a command's usage (so does COMMAND -h)

The default FILE is ` + defaultConfig + `.
Exit status: 0 success, 1 runtime failure or a problem check found, 2 bad usage
or configuration.
`

// run is main without the process: it takes the arguments and the output
// streams and returns the exit status, so tests can drive it directly.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	name, args := args[0], args[1:]
	switch name {
	case "-version", "--version":
		name = "version"
	case "-h", "-help", "--help":
		name = "help"
	}
	c := lookup(name)
	if c == nil {
		unknown(name, stderr)
		return ExitUsage
	}
	if c.wantsHelp(args) {
		fs, _ := c.flagSet(stdout)
		c.usage(fs, stdout)
		return ExitOK
	}
	return c.run(args, stdout, stderr)
}

// parseConfigFlag parses "-config FILE" for a subcommand, and the flags
// more adds.
func parseConfigFlag(name string, args []string, stderr io.Writer, more ...func(*flag.FlagSet)) (path, site string, ok bool) {
	fs := flag.NewFlagSet("sitemapd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&path, "config", defaultConfig, "configuration `file`")
	if name != "run" {
		fs.StringVar(&site, "site", "", "with several sites in the configuration: act on the site of this `name` only")
	}
	for _, m := range more {
		m(fs)
	}
	if c := lookup(name); c != nil {
		fs.Usage = func() { c.usage(fs, stderr) }
	}
	if err := fs.Parse(args); err != nil {
		return "", "", false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sitemapd %s: unexpected argument %q\n", name, fs.Arg(0))
		return "", "", false
	}
	return path, site, true
}

// loadConfig loads a configuration file, of one site or several; a
// problem of the file itself is printed, one line each.
func loadConfig(path string, stderr io.Writer) (*config.Process, bool) {
	proc, err := config.LoadProcessFile(path)
	if err != nil {
		printErr(stderr, err)
		return nil, false
	}
	return proc, true
}

func printErr(w io.Writer, err error) {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "sitemapd: %s\n", line)
	}
}

// selectSites returns the sites a command acts on: the one -site names,
// or every one. A site whose configuration is invalid among them is
// printed, and none is returned.
func selectSites(proc *config.Process, name string, stderr io.Writer) ([]*config.Config, bool) {
	if name == "" {
		if err := proc.Err(); err != nil {
			printErr(stderr, err)
			return nil, false
		}
		return proc.Sites, true
	}
	if s := proc.Site(name); s != nil {
		return []*config.Config{s}, true
	}
	for _, f := range proc.Failed {
		if f.Name == name {
			printErr(stderr, f)
			return nil, false
		}
	}
	names := make([]string, 0, len(proc.Sites))
	for _, s := range proc.Sites {
		names = append(names, s.Name)
	}
	fmt.Fprintf(stderr, "sitemapd: %s: no site is named %q (its sites: %s)\n", proc.File, name, strings.Join(names, ", "))
	return nil, false
}

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
		proc, ok := loadConfig(*path, stderr)
		if !ok {
			return ExitUsage
		}
		if cfgs, ok = selectSites(proc, site, stderr); !ok {
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

// session is what build and run share: the config, a logger, and a
// context canceled by SIGINT or SIGTERM.
type session struct {
	path  string
	proc  *config.Process
	sites []*config.Config // those the command acts on (-site, or all)
	cfg   *config.Config   // the site acted on now
	log   *zap.Logger
	ctx   context.Context
	stop  func()
}

// each runs f for every site of s, with s.cfg and s.log set to the
// site's (the log names it when there are several), and returns the
// worst exit status.
func (s session) each(f func(s session) int) int {
	status := ExitOK
	log := s.log
	for _, cfg := range s.sites {
		s.cfg, s.log = cfg, log
		if s.proc.Multi {
			s.log = log.With(zap.String("site", cfg.Name))
		}
		status = max(status, f(s))
		if s.ctx.Err() != nil {
			break
		}
	}
	return status
}

// start parses "-config FILE", loads the file and sets up logging and
// signals; ok is false (the message printed) on bad usage or config.
func start(name string, args []string, stderr io.Writer, more ...func(*flag.FlagSet)) (s session, ok bool) {
	var site string
	if s.path, site, ok = parseConfigFlag(name, args, stderr, more...); !ok {
		return s, false
	}
	if s.proc, ok = loadConfig(s.path, stderr); !ok {
		return s, false
	}
	if name == "run" {
		// The daemon reports the sites it cannot serve, and serves the
		// others.
		s.sites = s.proc.Sites
	} else if s.sites, ok = selectSites(s.proc, site, stderr); !ok {
		return s, false
	}
	if len(s.sites) > 0 {
		s.cfg = s.sites[0]
	}
	s.log = newLogger(s.proc.Log, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	s.ctx = ctx
	s.stop = func() { stop(); _ = s.log.Sync() }
	return s, true
}

func cmdBuild(args []string, stdout, stderr io.Writer) int {
	var f buildFlags
	s, ok := start("build", args, stderr, f.define)
	if !ok {
		return ExitUsage
	}
	defer s.stop()
	return s.each(func(s session) int { return buildSite(s, f, stdout) })
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

// siteLabel names the configuration, and the site when it holds several.
func siteLabel(s session) string {
	if s.proc.Multi {
		return s.path + " (site " + s.cfg.Name + ")"
	}
	return s.path
}

// splitErrors flattens errors.Join trees so each problem is logged alone.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// cmdPing sends what the state directory says the endpoints are owed, and
// reports per endpoint. It cannot run beside `sitemapd run` on the same
// state: the daemon sends on its schedule.
func cmdPing(args []string, stdout, stderr io.Writer) int {
	var f pingFlags
	s, ok := start("ping", args, stderr, f.define)
	if !ok {
		return ExitUsage
	}
	defer s.stop()
	return s.each(func(s session) int { return pingSite(s, f, stdout) })
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
	for i := 1; ; i++ {
		name := config.PartName(cfg.IndexName, i)
		if cfg.Gzip {
			name += ".gz"
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			if i == 1 {
				return nil, fmt.Errorf("no index at %s: run sitemapd build first", filepath.Join(dir, name))
			}
			return urls, nil
		}
		urls = append(urls, loc.File(name))
	}
}
