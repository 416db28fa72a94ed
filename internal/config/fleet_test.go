package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writePEM writes a self-signed certificate and its key (cert.pem,
// key.pem) into dir, made by crypto/x509, as an operator's CA would.
func writePEM(t *testing.T, dir string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sitemapd"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "cert.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), 0o644)
	write(t, filepath.Join(dir, "key.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})), 0o600)
}

func write(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestFleet(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	writePEM(t, dir)
	write(t, filepath.Join(dir, "pw"), "s3cret\nignored\n", 0o600)
	write(t, filepath.Join(dir, "pw-open"), "s3cret\n", 0o644)
	write(t, filepath.Join(dir, "pw-empty"), "\n", 0o600)
	write(t, filepath.Join(dir, "junk.pem"), "not pem\n", 0o644)
	const head = "root: site\nbase_url: https://www.sitemapd.test/\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error, in order; none: valid
	}{
		{"off", "", nil},
		{"plain", "fleet: {etcd: {endpoints: [http://127.0.0.1:2379]}}\n", nil},
		{"tls and password", "fleet:\n  etcd:\n    endpoints: [https://10.0.0.1:2379, https://10.0.0.2:2379]\n" +
			"    ca: cert.pem\n    cert: cert.pem\n    key: key.pem\n    username: site\n    password_file: pw\n" +
			"  prefix: /sitemapd/shop/\n  name: web-1\n", nil},
		{"settings without endpoints", "fleet: {etcd: {username: u}}\n", []string{"fleet.etcd.endpoints: is required"}},
		{"bad endpoints", "fleet: {etcd: {endpoints: [\"10.0.0.1:2379\", \"http://h\", \"http://h:1/x\"]}}\n",
			[]string{`endpoints[0]: "10.0.0.1:2379" must be an etcd client URL`, `endpoints[1]: "http://h" must be`, `endpoints[2]: "http://h:1/x" must have no path`}},
		{"http with tls", "fleet: {etcd: {endpoints: [\"http://h:1\"], ca: cert.pem}}\n", []string{"is plain http, but fleet.etcd has TLS files"}},
		{"cert without key", "fleet: {etcd: {endpoints: [\"https://h:1\"], cert: cert.pem}}\n", []string{"fleet.etcd.cert: and fleet.etcd.key go together"}},
		{"missing ca", "fleet: {etcd: {endpoints: [\"https://h:1\"], ca: nowhere.pem}}\n", []string{"fleet.etcd.ca: open ", "no such file"}},
		{"junk ca", "fleet: {etcd: {endpoints: [\"https://h:1\"], ca: junk.pem}}\n", []string{"junk.pem holds no PEM certificate"}},
		{"key not the cert's", "fleet: {etcd: {endpoints: [\"https://h:1\"], cert: cert.pem, key: junk.pem}}\n", []string{"fleet.etcd.cert and key"}},
		{"user without password", "fleet: {etcd: {endpoints: [\"http://h:1\"], username: u}}\n", []string{"fleet.etcd.password_file: is required with fleet.etcd.username"}},
		{"password without user", "fleet: {etcd: {endpoints: [\"http://h:1\"], password_file: pw}}\n", []string{"fleet.etcd.username: is required"}},
		{"password world-readable", "fleet: {etcd: {endpoints: [\"http://h:1\"], username: u, password_file: pw-open}}\n", []string{"pw-open is readable by every user (mode 0644)"}},
		{"password empty", "fleet: {etcd: {endpoints: [\"http://h:1\"], username: u, password_file: pw-empty}}\n", []string{"the password, is empty"}},
		{"prefix and name", "fleet: {etcd: {endpoints: [\"http://h:1\"]}, prefix: sitemapd, name: \"-x\"}\n", []string{`fleet.prefix: "sitemapd" must start and end`, `fleet.name: "-x" must be`}},
		{"mtime", "pages: {lastmod: mtime}\nfleet: {etcd: {endpoints: [\"http://h:1\"]}}\n", []string{"pages.lastmod: mtime cannot be agreed by a fleet"}},
		{"unknown key", "fleet: {etcd: {endpoint: [\"http://h:1\"]}}\n", []string{"fleet.etcd.endpoint: unknown key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load([]byte(head+tc.yaml), filepath.Join(dir, "sitemapd.yml"))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("valid, want %q", tc.want)
			}
			msg := err.Error()
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q", msg, w)
				}
				msg = msg[i+len(w):]
			}
			_ = c
		})
	}
}

func TestFleetValues(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "site"), 0o755)
	writePEM(t, dir)
	write(t, filepath.Join(dir, "pw"), "s3cret\r\nignored\n", 0o600)
	c, err := Load([]byte("root: site\nbase_url: https://www.sitemapd.test/\nfleet:\n  etcd:\n    endpoints: [https://h:1]\n"+
		"    ca: cert.pem\n    cert: cert.pem\n    key: key.pem\n    username: u\n    password_file: pw\n"), filepath.Join(dir, "s.yml"))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Fleet
	if !f.On() || f.Prefix != DefaultFleetPrefix || f.Etcd.CA != filepath.Join(dir, "cert.pem") {
		t.Errorf("fleet %+v", f)
	}
	if h, _ := os.Hostname(); h != "" && f.ServerName() != h {
		t.Errorf("name %q, want the hostname %q", f.ServerName(), h)
	}
	if pw, err := f.Etcd.Password(); pw != "s3cret" || err != nil {
		t.Errorf("password %q %v", pw, err)
	}
	tc, err := f.Etcd.TLS()
	if err != nil || tc.RootCAs == nil || len(tc.Certificates) != 1 {
		t.Errorf("tls %v %v", tc, err)
	}
	off := Default()
	if off.Fleet.On() {
		t.Error("the default is a fleet")
	}
}

// TestFleetCredentials: the etcd client key and password file may be
// systemd credentials ($CREDENTIALS_DIRECTORY/NAME, LoadCredential=), as
// a searchconsole endpoint's key may.
func TestFleetCredentials(t *testing.T) {
	creds := t.TempDir()
	writePEM(t, creds)
	write(t, filepath.Join(creds, "password"), "s3cret\n", 0o600)
	t.Setenv(CredentialsEnv, creds)
	root := t.TempDir()
	cfg, err := Load([]byte("root: "+root+"\nbase_url: https://www.sitemapd.test/\nstate_dir: "+t.TempDir()+`
fleet:
  etcd:
    endpoints: [https://127.0.0.1:2379]
    ca: ${CREDENTIALS_DIRECTORY}/cert.pem
    cert: $CREDENTIALS_DIRECTORY/cert.pem
    key: $CREDENTIALS_DIRECTORY/key.pem
    username: sitemapd
    password_file: $CREDENTIALS_DIRECTORY/password
`), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Fleet.Etcd
	for got, want := range map[string]string{e.CA: "cert.pem", e.Cert: "cert.pem", e.Key: "key.pem", e.PasswordFile: "password"} {
		if got != filepath.Join(creds, want) {
			t.Errorf("%q, want %q", got, filepath.Join(creds, want))
		}
	}
}
