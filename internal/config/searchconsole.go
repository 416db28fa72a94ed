package config

// A searchconsole endpoint: the Search Console property sitemapd submits
// the site's sitemaps to, and the service account key it does so with.

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// DomainPrefix starts a Domain property's name (sc-domain:shop.test); any
// other property is a URL prefix (https://shop.test/).
const DomainPrefix = "sc-domain:"

// CredentialsEnv is the variable systemd's LoadCredential= sets to the
// directory holding a service's credentials; a credentials path may start
// with it ($CREDENTIALS_DIRECTORY/gsc.json or ${CREDENTIALS_DIRECTORY}/…).
const CredentialsEnv = "CREDENTIALS_DIRECTORY"

// maxKeySize bounds the key file read: a service account key is some 2 KB.
const maxKeySize = 64 << 10

var domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// normalizeCredentials expands $CREDENTIALS_DIRECTORY at the start of a
// credentials path (left as written when it is not set, for the validator
// to say so) and makes a relative path absolute against the file's
// directory.
func (c *Config) normalizeCredentials(ep *Endpoint) {
	p, ok := expandCredentials(ep.Credentials)
	if !ok {
		return
	}
	ep.Credentials = c.resolve(p)
}

// expandCredentials expands the variable of LoadCredential= at the start
// of p; ok is false when p names it and it is not set.
func expandCredentials(p string) (string, bool) {
	for _, v := range []string{"$" + CredentialsEnv, "${" + CredentialsEnv + "}"} {
		if rest, found := strings.CutPrefix(p, v); found && (rest == "" || rest[0] == '/') {
			dir := os.Getenv(CredentialsEnv)
			if dir == "" {
				return p, false
			}
			return dir + rest, true
		}
	}
	return p, true
}

// checkSearchConsole checks a searchconsole endpoint: its property, that
// the property holds base_url (Google refuses a sitemap outside it), and
// its key file.
func (c *Config) checkSearchConsole(key string, ep Endpoint, bad badFunc) {
	if ep.URL != "" {
		bad(key+".url", "is not used by searchconsole endpoints (sitemapd calls Google's Search Console API)")
	}
	if ep.Key != "" {
		bad(key+".key", "is only used by indexnow endpoints")
	}
	if err := checkProperty(ep.Property); err != nil {
		bad(key+".property", "%v", err)
	} else if !ep.Covers(c.BaseURL) {
		bad(key+".property", "%q does not hold base_url %s: Google takes only sitemaps inside the property (a Domain property sc-domain:HOST holds HOST and its subdomains; a URL-prefix property the URLs that start with it)", ep.Property, c.BaseURL)
	}
	if err := checkCredentials(ep.Credentials); err != nil {
		bad(key+".credentials", "%v", err)
	}
}

// checkProperty checks a property's name as Search Console writes it.
func checkProperty(p string) error {
	if p == "" {
		return errors.New(`is required: the Search Console property, "sc-domain:HOST" (a Domain property) or "https://HOST/" (a URL-prefix property), as Search Console names it`)
	}
	if d, ok := strings.CutPrefix(p, DomainPrefix); ok {
		if !domainRE.MatchString(d) {
			return fmt.Errorf("%q: a Domain property is sc-domain: and a domain name in lower case, such as sc-domain:shop.test (no scheme, port or path)", p)
		}
		return nil
	}
	u, err := url.Parse(p)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("%q is neither sc-domain:HOST nor an http:// or https:// URL prefix", p)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return fmt.Errorf("%q: a URL-prefix property carries no user info, query or fragment", p)
	case !strings.HasSuffix(u.Path, "/"):
		return fmt.Errorf("%q: a URL-prefix property ends with '/' (Search Console names it %s/)", p, p)
	case u.Scheme+"://"+strings.ToLower(u.Host) != p[:len(u.Scheme)+3+len(u.Host)]:
		return fmt.Errorf("%q: the host of a URL-prefix property is in lower case, as Search Console names it", p)
	}
	return nil
}

// Covers reports whether the searchconsole endpoint's property holds the
// URL u (a sitemap's, or base_url): a Domain property every URL of its
// host and its subdomains, whatever the scheme and port; a URL-prefix
// property the URLs that start with it, scheme and host compared in lower
// case.
func (e Endpoint) Covers(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return false
	}
	if d, ok := strings.CutPrefix(e.Property, DomainPrefix); ok {
		h := strings.TrimSuffix(strings.ToLower(p.Hostname()), ".")
		return h == d || strings.HasSuffix(h, "."+d)
	}
	canon := strings.ToLower(p.Scheme) + "://" + strings.ToLower(p.Host) + p.EscapedPath()
	return e.Property != "" && strings.HasPrefix(canon, e.Property)
}

// checkCredentials checks a service account key file: there, a regular
// file, readable by its owner alone (it holds a private key), and a
// service account's key.
func checkCredentials(p string) error {
	if p == "" {
		return errors.New("is required: the path of the service account's JSON key (or $" + CredentialsEnv + "/NAME with systemd's LoadCredential=NAME:PATH)")
	}
	if strings.Contains(p, "$"+CredentialsEnv) || strings.Contains(p, "${"+CredentialsEnv+"}") {
		return fmt.Errorf("%q: $%s is not set: systemd sets it for a unit with LoadCredential= (run sitemapd check on the key file's own path outside the service)", p, CredentialsEnv)
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file: save the service account's JSON key there (Google Cloud console, IAM, Service accounts, Keys)", p)
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", p)
	case st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s has mode %04o: it holds a private key, which its group and others must not read: chmod 600 %s (or use systemd's LoadCredential=)", p, st.Mode().Perm(), p)
	}
	data, err := ReadCredentials(p)
	if err != nil {
		return err
	}
	var k struct {
		Type        string `json:"type"`
		ClientEmail string `json:"client_email"`
		PrivateKey  string `json:"private_key"`
		TokenURI    string `json:"token_uri"`
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("%s is not a JSON key file: %v", p, err)
	}
	if k.Type != "service_account" || k.ClientEmail == "" || k.PrivateKey == "" || k.TokenURI == "" {
		return fmt.Errorf("%s is not a service account's key (type \"service_account\" with client_email, private_key and token_uri): create a key of a service account, not an OAuth client", p)
	}
	if err := checkPrivateKey(k.PrivateKey); err != nil {
		return fmt.Errorf("%s: private_key %v: download the key again", p, err)
	}
	return nil
}

// checkPrivateKey checks that a key file's private_key is what a JWT is
// signed with: a PEM block holding an RSA key, PKCS #8 as Google writes
// it or PKCS #1.
func checkPrivateKey(s string) error {
	b, _ := pem.Decode([]byte(s))
	if b == nil {
		return errors.New("is not PEM")
	}
	if k, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
		if _, ok := k.(*rsa.PrivateKey); !ok {
			return fmt.Errorf("is a %T, not an RSA key", k)
		}
		return nil
	}
	if _, err := x509.ParsePKCS1PrivateKey(b.Bytes); err != nil {
		return fmt.Errorf("is not an RSA private key: %v", err)
	}
	return nil
}

// ReadCredentials reads a service account key file, or says why this user
// cannot: the one reading of it, by validation and by the searchconsole
// package.
func ReadCredentials(p string) ([]byte, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrPermission) {
		return nil, fmt.Errorf("%s cannot be read by user %d: it must be the service's (chown it to the user sitemapd runs as, or use systemd's LoadCredential=)", p, os.Getuid())
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeySize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", p, err)
	}
	if len(data) > maxKeySize {
		return nil, fmt.Errorf("%s is over %d KiB: not a key file", p, maxKeySize>>10)
	}
	return data, nil
}
