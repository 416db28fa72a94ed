package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Fleet makes this server one of several that serve the same site, each
// with its own copy of the document root, coordinated through etcd: they
// agree on each page's lastmod, so that they publish the same bytes
// (docs/fleet.md). Off unless Etcd.Endpoints is set.
type Fleet struct {
	Etcd Etcd `yaml:"etcd"`
	// Prefix is where the site's keys are in etcd; each site sharing a
	// cluster needs its own. It starts and ends with "/".
	Prefix string `yaml:"prefix"`
	// Name is this server's among the fleet's; the hostname by default.
	Name string `yaml:"name"`
}

// Etcd is how to reach the fleet's etcd cluster.
type Etcd struct {
	// Endpoints are the members' client URLs (http:// or https://).
	Endpoints []string `yaml:"endpoints"`
	// CA, Cert and Key are PEM files: the CA that signs the members'
	// certificates, and this client's certificate and key (both or
	// neither). Absolute after Load.
	CA   string `yaml:"ca"`
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
	// Username authenticates with the password in PasswordFile (its first
	// line), a file no other user may read. Absolute after Load.
	Username     string `yaml:"username"`
	PasswordFile string `yaml:"password_file"`
}

// DefaultFleetPrefix is fleet.prefix's default.
const DefaultFleetPrefix = "/sitemapd/"

// On reports whether the site is one of a fleet.
func (f *Fleet) On() bool { return len(f.Etcd.Endpoints) > 0 }

// ServerName is this server's name: Name, or the hostname.
func (f *Fleet) ServerName() string {
	if f.Name != "" {
		return f.Name
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
}

// Password reads the password from PasswordFile ("" without one).
func (e *Etcd) Password() (string, error) {
	if e.PasswordFile == "" {
		return "", nil
	}
	b, err := os.ReadFile(e.PasswordFile)
	if err != nil {
		return "", fmt.Errorf("read fleet.etcd.password_file: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimRight(first, "\r"), nil
}

// TLS is the client's TLS configuration, or nil when no TLS file is set
// (https endpoints are then verified against the system's CAs).
func (e *Etcd) TLS() (*tls.Config, error) {
	if e.CA == "" && e.Cert == "" {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if e.CA != "" {
		pem, err := os.ReadFile(e.CA)
		if err != nil {
			return nil, fmt.Errorf("read fleet.etcd.ca: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("fleet.etcd.ca: %s holds no PEM certificate", e.CA)
		}
	}
	if e.Cert != "" {
		pair, err := tls.LoadX509KeyPair(e.Cert, e.Key)
		if err != nil {
			return nil, fmt.Errorf("fleet.etcd.cert and key (%s, %s): %w", e.Cert, e.Key, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// normalizeFleet makes the fleet's file paths absolute.
func (c *Config) normalizeFleet() {
	e := &c.Fleet.Etcd
	for _, p := range []*string{&e.CA, &e.Cert, &e.Key, &e.PasswordFile} {
		// systemd's LoadCredential= directory, as a searchconsole
		// endpoint's credentials take it; unset, the path stays as
		// written and its check names it.
		if x, ok := expandCredentials(*p); ok && x != "" {
			*p = c.resolve(x)
		}
	}
}

// checkFleet checks the fleet section: nothing of it matters while no
// endpoint is set, except that settings without endpoints are a mistake.
func (c *Config) checkFleet(bad badFunc) {
	f := &c.Fleet
	if !f.On() {
		if f.Etcd.CA != "" || f.Etcd.Cert != "" || f.Etcd.Username != "" {
			bad("fleet.etcd.endpoints", "is required when fleet.etcd has other settings (the fleet is off without endpoints)")
		}
		return
	}
	tlsFiles := f.Etcd.CA != "" || f.Etcd.Cert != ""
	for i, ep := range f.Etcd.Endpoints {
		key := fmt.Sprintf("fleet.etcd.endpoints[%d]", i)
		u, err := url.Parse(ep)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Port() == "":
			bad(key, "%q must be an etcd client URL with a port, e.g. https://10.0.0.1:2379", ep)
		case u.Path != "" && u.Path != "/":
			bad(key, "%q must have no path", ep)
		case tlsFiles && u.Scheme == "http":
			bad(key, "%q is plain http, but fleet.etcd has TLS files: use https://", ep)
		}
	}
	c.checkFleetTLS(bad)
	c.checkFleetAuth(bad)
	if p := f.Prefix; !strings.HasPrefix(p, "/") || !strings.HasSuffix(p, "/") || strings.ContainsAny(p, " \t\n\x00") {
		bad("fleet.prefix", "%q must start and end with \"/\" and hold no space, e.g. /sitemapd/example.com/", p)
	}
	if f.Name != "" && !ValidSiteName(f.Name) {
		bad("fleet.name", "%q must be 1–128 letters, digits, '.', '-' or '_', starting with a letter or digit", f.Name)
	}
	if c.Pages.LastModFrom == LastModMTime {
		bad("pages.lastmod", "mtime cannot be agreed by a fleet (each server's copy has its own mtimes): use significant or content")
	}
}

func (c *Config) checkFleetTLS(bad badFunc) {
	e := &c.Fleet.Etcd
	if (e.Cert == "") != (e.Key == "") {
		bad("fleet.etcd.cert", "and fleet.etcd.key go together: the client's certificate and its private key")
		return
	}
	for _, f := range []struct{ key, path string }{{"fleet.etcd.ca", e.CA}, {"fleet.etcd.cert", e.Cert}, {"fleet.etcd.key", e.Key}} {
		if f.path != "" {
			checkReadable(f.key, f.path, bad)
		}
	}
	if _, err := e.TLS(); err != nil {
		bad("fleet.etcd", "%v", err)
	}
}

func (c *Config) checkFleetAuth(bad badFunc) {
	e := &c.Fleet.Etcd
	switch {
	case e.Username == "" && e.PasswordFile == "":
		return
	case e.Username == "":
		bad("fleet.etcd.username", "is required with fleet.etcd.password_file")
		return
	case e.PasswordFile == "":
		bad("fleet.etcd.password_file", "is required with fleet.etcd.username: a file holding the password")
		return
	}
	st, err := os.Stat(e.PasswordFile)
	if err != nil {
		bad("fleet.etcd.password_file", "%v", err)
		return
	}
	if st.Mode().Perm()&0o007 != 0 {
		bad("fleet.etcd.password_file", "%s is readable by every user (mode %04o): chmod o-rwx it", e.PasswordFile, st.Mode().Perm())
		return
	}
	if pw, err := e.Password(); err != nil {
		bad("fleet.etcd.password_file", "%v", err)
	} else if pw == "" {
		bad("fleet.etcd.password_file", "%s: its first line, the password, is empty", e.PasswordFile)
	}
}

// checkReadable reports the value at key unless path is a regular file
// this process can read.
func checkReadable(key, path string, bad badFunc) {
	f, err := os.Open(path)
	if err != nil {
		bad(key, "%v", err)
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		bad(key, "%v", err)
	} else if !st.Mode().IsRegular() {
		bad(key, "%s is not a regular file", path)
	}
}
