package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// subcommand is one command: how it is called, what it does, its flags
// and its entry point.
type subcommand struct {
	name     string
	synopsis string // what follows the name in the usage line
	about    string // what it does, for its -h
	config   bool   // takes -config FILE
	// flags defines the flags it takes besides -config; the command
	// itself parses with the same function, so its -h cannot drift.
	flags func(*flag.FlagSet)
	run   func(args []string, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order the usage shows them.
var commands []*subcommand

func init() {
	commands = []*subcommand{
		{name: "run", synopsis: "[-config FILE]", config: true,
			about: "The daemon: one full build, then watch the document root and republish what changes.\n" +
				"SIGHUP (or an edit of the file) reloads the configuration; SIGTERM stops it.\n" +
				"A configuration with sites: or include: runs every site in this one process.",
			run: func(args []string, _, stderr io.Writer) int { return cmdRun(args, stderr) }},
		{name: "build", synopsis: "[-config FILE] [-site NAME] [-force] [-dry-run]", config: true,
			about: "One full build: every group's sitemap, the index, removal of sitemaps no longer\n" +
				"needed; then exit. -dry-run prints what it would do and touches nothing.",
			flags: func(fs *flag.FlagSet) { new(buildFlags).define(fs) }, run: cmdBuild},
		{name: "check", synopsis: "[-config FILE] [-site NAME] [-user NAME | -reach [-timeout D]] [PATH|URL...]", config: true,
			about: "Without PATH or URL: validate the configuration, one FILE:LINE: key: problem line\n" +
				"each; then find what would keep the service from starting, one line each naming\n" +
				"the address or path, the problem and what to do: the listen address taken by\n" +
				"another process, the document root not readable, the output root or state_dir\n" +
				"(or the directory it would be made in) not writable, by the user check runs as\n" +
				"or the one -user names (the service's, e.g. sitemapd, when check runs as root).\n" +
				"With PATH or URL: validate sitemaps or indexes, on disk or over HTTP, against the\n" +
				"protocol (-config says where a file on disk is served).\n" +
				"With -reach: fetch through base_url what search engines fetch, one line each:\n" +
				"each IndexNow key file (200, text/plain, the key, no redirect), robots.txt's\n" +
				"Sitemap lines, the index and each sitemap it lists (200, XML, the bytes on disk).\n\n" +
				"Exit status: 0 all is well; 1 a problem found (one that would stop the service,\n" +
				"one in a sitemap, or one -reach found); 2 bad usage or an invalid configuration.",
			flags: func(fs *flag.FlagSet) { new(checkFlags).define(fs) }, run: cmdCheck},
		{name: "ping", synopsis: "[-config FILE] [-site NAME] [-now] [-dry-run]", config: true,
			about: "Send search engines what they are owed now, and print what each endpoint was sent.",
			flags: func(fs *flag.FlagSet) { new(pingFlags).define(fs) }, run: cmdPing},
		{name: "health", synopsis: "[-config FILE] [-site NAME] [-timeout D]", config: true,
			about: "Ask the running daemon's /healthz (on the configuration's listen address): exit 0\n" +
				"when it answers 200, 1 otherwise, saying why (a container's HEALTHCHECK).",
			flags: func(fs *flag.FlagSet) { new(healthFlags).define(fs) }, run: cmdHealth},
		{name: "status", synopsis: "[-config FILE] [-site NAME] [-timeout D]", config: true,
			about: "Print the running daemon's status page as text (/status?format=text, on the\n" +
				"configuration's listen address): health, URLs listed, pages left out, what each\n" +
				"search engine is owed and how it last answered, recent publishes and submissions.\n\n" +
				"Exit status: 0 printed; 1 no answer, or listen is not set; 2 bad usage or an\n" +
				"invalid configuration.",
			flags: func(fs *flag.FlagSet) { new(statusFlags).define(fs) }, run: cmdStatus},
		{name: "fleet", synopsis: "[-config FILE] [-site NAME] [-timeout D]", config: true,
			about: "Print what etcd holds of the site's fleet (fleet: in the configuration): the\n" +
				"servers running, the leader (which sends the notifications), whether this server\n" +
				"is among them, and how many versions' times are recorded.\n\n" +
				"Exit status: 0 printed; 1 no fleet, or etcd unreachable; 2 bad usage or an\n" +
				"invalid configuration.",
			flags: func(fs *flag.FlagSet) { new(fleetFlags).define(fs) }, run: cmdFleet},
		{name: "version", about: "Print the version, the commit it was built from and the Go version.", run: cmdVersion},
		{name: "help", synopsis: "[COMMAND]", about: "Print the usage, or a command's.", run: cmdHelp},
	}
}

type buildFlags struct{ force, dryRun bool }

func (f *buildFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.force, "force", false, "publish even a build that stops listing most pages (the shrink guard)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print what the build would write, remove and refuse, writing nothing")
}

type checkFlags struct {
	user    string
	reach   bool
	timeout time.Duration
}

func (f *checkFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.user, "user", "", "check that the user of this `name` (or uid), the service's, can write what it must (default: the user check runs as)")
	fs.BoolVar(&f.reach, "reach", false, "fetch through base_url what search engines fetch (key files, robots.txt, the index and its sitemaps) and compare it with the files written")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "with -reach: how long to wait for each answer")
}

type pingFlags struct{ now, dryRun bool }

func (f *pingFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.now, "now", false, "also ping the published index, owed or not")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the requests instead of sending them")
}

type healthFlags struct{ timeout time.Duration }

func (f *healthFlags) define(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long to wait for the answer")
}

func lookup(name string) *subcommand {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// flagSet returns a FlagSet with c's flags, writing to w, whose usage is
// c's.
func (c *subcommand) flagSet(w io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("sitemapd "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	var path *string
	if c.config {
		path = fs.String("config", defaultConfig, "configuration `file`")
		if c.name != "run" {
			fs.String("site", "", "with several sites in the configuration: act on the site of this `name` only")
		}
	}
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() { c.usage(fs, w) }
	return fs, path
}

// usage prints c's usage line, what it does and its flags.
func (c *subcommand) usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: sitemapd %s %s\n\n%s\n", c.name, c.synopsis, c.about)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
}

// wantsHelp reports whether args ask for c's usage (-h, -help or --help
// among its flags).
func (c *subcommand) wantsHelp(args []string) bool {
	fs, _ := c.flagSet(io.Discard)
	fs.Usage = func() {}
	return errors.Is(fs.Parse(args), flag.ErrHelp)
}

// cmdHelp is `sitemapd help [COMMAND]`.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	c := lookup(args[0])
	if c == nil || len(args) > 1 {
		unknown(args[0], stderr)
		return ExitUsage
	}
	fs, _ := c.flagSet(stdout)
	c.usage(fs, stdout)
	return ExitOK
}

// unknown says a command does not exist, suggesting the nearest one.
func unknown(name string, w io.Writer) {
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(w, "sitemapd: %q: the command comes first, then its flags: sitemapd COMMAND [flags]\n\n%s", name, usage)
		return
	}
	if near := nearest(name); near != "" {
		fmt.Fprintf(w, "sitemapd: unknown command %q: did you mean %q?\n", name, near)
		return
	}
	fmt.Fprintf(w, "sitemapd: unknown command %q\n\n%s", name, usage)
}

// nearest returns the command name closest to name, by Damerau-Levenshtein
// distance (a swap of two neighbours counts as one edit: "biuld"), when it
// is close enough to be a typo, or the only command name starts with;
// otherwise "".
func nearest(name string) string {
	best, bestD, prefixed := "", 3, []string{}
	for _, c := range commands {
		if d := editDistance(strings.ToLower(name), c.name); d < bestD && d < len(c.name)/2+1 {
			best, bestD = c.name, d
		}
		if len(name) >= 2 && strings.HasPrefix(c.name, strings.ToLower(name)) {
			prefixed = append(prefixed, c.name)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
