package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
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

// loadSites loads the configuration file and selects the sites a command
// acts on (selectSites); ok is false, the problem printed, when either
// fails.
func loadSites(path, site string, stderr io.Writer) (proc *config.Process, sites []*config.Config, ok bool) {
	if proc, ok = loadConfig(path, stderr); !ok {
		return nil, nil, false
	}
	sites, ok = selectSites(proc, site, stderr)
	return proc, sites, ok
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

// perSite runs a command that acts on each site in turn (build, ping):
// its flags (defined by flags) parsed and the configuration loaded by
// start, then site for each, and the worst exit status.
func perSite(name string, args []string, stderr io.Writer, flags func(*flag.FlagSet), site func(session) int) int {
	s, ok := start(name, args, stderr, flags)
	if !ok {
		return ExitUsage
	}
	defer s.stop()
	return s.each(site)
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
