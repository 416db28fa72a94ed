package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Process is a loaded configuration file: what the process has once (log,
// listen, state_dir) and the sites it serves.
//
// A file with neither sites: nor include: is one site, read exactly as
// Load reads it (its state in state_dir itself). One with either is a
// multi-site file: process-wide keys at its top, each site in an entry
// of sites: or in a file an include: glob matches, its state in
// state_dir/<name>. A per-site key at the top of a multi-site file, or a
// process-wide key in a site, is an error naming it.
type Process struct {
	File string // the configuration file
	// Multi is set when the file has sites: or include:.
	Multi    bool
	StateDir string
	Log      Log
	Listen   string
	// Include holds the include: globs, absolute.
	Include []string
	// Sites are the sites whose configuration is valid, those of sites:
	// first, then those of each glob's files in lexical order.
	Sites []*Config
	// Failed are the sites whose configuration is not: the file and line
	// of every problem are in Err. A failed site is no error of the whole
	// file, so that one bad site file does not stop the others.
	Failed []*SiteError
}

// SiteError is a site whose configuration is invalid.
type SiteError struct {
	Name string // "" if not even a name could be read
	File string // the file the site is in
	Err  error  // one *Error per problem, joined
}

func (e *SiteError) Error() string {
	if e.Name == "" {
		return e.Err.Error()
	}
	return "site " + e.Name + ": " + e.Err.Error()
}

func (e *SiteError) Unwrap() error { return e.Err }

// Err joins every failed site's error, nil when none failed.
func (p *Process) Err() error {
	errs := make([]error, len(p.Failed))
	for i, f := range p.Failed {
		errs[i] = f
	}
	return errors.Join(errs...)
}

// Site returns the valid site named name, or nil.
func (p *Process) Site(name string) *Config {
	for _, s := range p.Sites {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// processKeys are the keys at the top of a multi-site file, sites aside.
type processKeys struct {
	StateDir string   `yaml:"state_dir"`
	Log      Log      `yaml:"log"`
	Listen   string   `yaml:"listen"`
	Include  []string `yaml:"include"`
}

// isProcessKey reports whether a top-level key is the process's, not a
// site's.
func isProcessKey(k string) bool {
	switch k {
	case "state_dir", "log", "listen", "include", "sites":
		return true
	}
	return false
}

// multiKey returns the sites: or include: key of a top-level mapping, or
// nil when it is one site's.
func multiKey(root *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "sites" || k.Value == "include" {
			return k
		}
	}
	return nil
}

// LoadProcessFile reads and loads the configuration in path.
func LoadProcessFile(path string) (*Process, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return LoadProcess(data, path)
}

// LoadProcess loads a configuration that may hold several sites. The error
// is the file's own (bad YAML, a bad process-wide key): then nothing is
// usable. A bad site is not an error but one of Failed.
func LoadProcess(data []byte, path string) (*Process, error) {
	root, err := topMapping(data, path)
	if err != nil {
		return nil, err
	}
	if multiKey(root) == nil {
		cfg, err := Load(data, path)
		if err != nil {
			return nil, err
		}
		return &Process{File: path, StateDir: cfg.StateDir, Log: cfg.Log, Listen: cfg.Listen, Sites: []*Config{cfg}}, nil
	}
	p := &Process{File: path, Multi: true}
	lines := map[string]int{}
	top, sites, errs := splitProcess(root, path, lines)
	pk := processKeys{StateDir: DefaultStateDir(), Log: Default().Log}
	checkKeys(top, reflect.TypeOf(pk), "", path, lines, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := top.Decode(&pk); err != nil {
		return nil, typeErrors(err, path, lines)
	}
	bad := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: path, Line: lines[key], Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	p.takeKeys(pk, bad)
	if sites != nil && sites.Kind != yaml.SequenceNode && sites.Tag != "!!null" {
		bad("sites", "must be a list of sites, one \"- name: …\" entry each")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p.loadSites(sites)
	if len(p.Sites)+len(p.Failed) == 0 {
		key := "sites"
		if lines[key] == 0 {
			key = "include"
		}
		bad(key, "no site: sites: lists none and include: matches no file")
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// splitProcess parts the top mapping of a multi-site file into the
// process's keys (top) and sites:, reporting a site's key found there.
func splitProcess(root *yaml.Node, path string, lines map[string]int) (top, sites *yaml.Node, errs []error) {
	siteFields := yamlFields(reflect.TypeFor[Config]())
	top = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch _, perSite := siteFields[k.Value]; {
		case k.Value == "sites":
			if sites != nil {
				errs = append(errs, &Error{File: path, Line: k.Line, Key: "sites", Msg: fmt.Sprintf("key given twice (first on line %d)", lines["sites"])})
			}
			sites, lines["sites"] = v, k.Line
		case perSite && !isProcessKey(k.Value):
			errs = append(errs, &Error{File: path, Line: k.Line, Key: k.Value,
				Msg: "is a site's key: with sites or include, set it in each site (its entry under sites:, or its included file)"})
		default:
			top.Content = append(top.Content, k, v)
		}
	}
	return top, sites, errs
}

// takeKeys checks the process-wide keys of a multi-site file and keeps
// them, paths made absolute against the file's directory.
func (p *Process) takeKeys(pk processKeys, bad badFunc) {
	checkProcessKeys(pk.Log, pk.Listen, bad)
	anchor := &Config{File: p.File}
	if pk.StateDir == "" {
		bad("state_dir", "is required with sites: each site keeps its state in state_dir/<name>")
	}
	p.StateDir, p.Log, p.Listen = anchor.resolve(pk.StateDir), pk.Log, pk.Listen
	for i, g := range pk.Include {
		if _, err := filepath.Match(g, ""); err != nil || g == "" {
			bad(fmt.Sprintf("include[%d]", i), "%q is not a valid glob of site files", g)
			continue
		}
		p.Include = append(p.Include, anchor.resolve(g))
	}
}

// loadSites loads the sites of sites: (nil if none), then those of the
// files the include: globs match.
func (p *Process) loadSites(sites *yaml.Node) {
	if sites != nil {
		for i, n := range sites.Content {
			p.addSite(n, p.File, fmt.Sprintf("sites[%d]", i), "")
		}
	}
	self, _ := filepath.Abs(p.File)
	for _, g := range p.Include {
		files, _ := filepath.Glob(g) // sorted; the pattern was checked
		for _, f := range files {
			if f == self {
				continue // include: [*.yaml] next to the file itself
			}
			p.loadSiteFile(f)
		}
	}
}

// loadSiteFile loads a site from an included file, named by the file's
// base name unless it says otherwise.
func (p *Process) loadSiteFile(file string) {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	data, err := os.ReadFile(file)
	if err != nil {
		p.Failed = append(p.Failed, &SiteError{Name: name, File: file, Err: fmt.Errorf("read site file: %w", err)})
		return
	}
	n, err := topMapping(data, file)
	if err != nil {
		p.Failed = append(p.Failed, &SiteError{Name: name, File: file, Err: err})
		return
	}
	p.addSite(n, file, "", name)
}

// addSite decodes and validates one site's mapping; key prefixes the keys
// its errors name ("sites[2]"), and name is its name if it states none.
func (p *Process) addSite(n *yaml.Node, file, key, name string) {
	fail := func(err error) {
		p.Failed = append(p.Failed, &SiteError{Name: name, File: file, Err: prefixKeys(err, key)})
	}
	if n.Kind != yaml.MappingNode {
		fail(&Error{File: file, Line: n.Line, Msg: "a site must be a mapping of keys to values"})
		return
	}
	var errs []error
	nameLine := n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "name" && v.Kind == yaml.ScalarNode:
			name, nameLine = v.Value, k.Line
		case isProcessKey(k.Value):
			errs = append(errs, &Error{File: file, Line: k.Line, Key: k.Value,
				Msg: "is process-wide: set it once, at the top of " + p.File})
		}
	}
	if name == "" {
		errs = append(errs, &Error{File: file, Line: n.Line, Key: "name", Msg: "is required for a site under sites: (it names the site's state directory)"})
	}
	if len(errs) > 0 {
		fail(errors.Join(errs...))
		return
	}
	cfg := Default()
	cfg.File = file
	lines := map[string]int{}
	checkKeys(n, reflect.TypeOf(cfg), "", file, lines, &errs)
	if len(errs) > 0 {
		fail(errors.Join(errs...))
		return
	}
	if err := n.Decode(&cfg); err != nil {
		fail(typeErrors(err, file, lines))
		return
	}
	cfg.Name = name
	cfg.StateDir = filepath.Join(p.StateDir, name)
	cfg.Log, cfg.Listen = p.Log, p.Listen
	if err := cfg.validate(lines); err != nil {
		fail(err)
		return
	}
	if err := p.checkApart(&cfg, nameLine, lines); err != nil {
		fail(err)
		return
	}
	p.Sites = append(p.Sites, &cfg)
}

// checkApart checks a valid site against the sites loaded before it: its
// own name, and sitemaps written apart from theirs.
func (p *Process) checkApart(cfg *Config, nameLine int, lines map[string]int) error {
	file, name := cfg.File, cfg.Name
	for _, o := range p.Sites {
		switch {
		case o.Name == name:
			return &Error{File: file, Line: nameLine, Key: "name", Msg: fmt.Sprintf("%q names another site too (in %s): each site needs its own name", name, o.File)}
		case o.OutputRoot() == cfg.OutputRoot():
			return &Error{File: file, Line: lines["root"], Key: "root", Msg: fmt.Sprintf("site %q writes its sitemaps in %s too: one site an output directory", o.Name, o.OutputRoot())}
		case within(cfg.OutputRoot(), o.Root) || within(cfg.OutputRoot(), o.OutputRoot()) ||
			within(o.OutputRoot(), cfg.Root) || within(o.OutputRoot(), cfg.OutputRoot()):
			// Each would take the other's sitemaps for its own (they
			// carry the same marker), and remove them as stale.
			return &Error{File: file, Line: lines["root"], Key: "root", Msg: fmt.Sprintf("the sitemaps of this site and of site %q (%s) would be written one inside the other's tree: keep their roots and output directories apart", o.Name, o.Root)}
		}
	}
	return nil
}

// prefixKeys puts key before the key every *Error in err names.
func prefixKeys(err error, key string) error {
	if key == "" {
		return err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, prefixKeys(e, key))
		}
		return errors.Join(out...)
	}
	if e, ok := err.(*Error); ok {
		c := *e
		c.Key = joinKey(key, c.Key)
		return &c
	}
	return err
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
