package ping

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sitemapd/sitemapd/internal/config"
)

// secrets are what the endpoint URLs of these tests carry: none may be
// shown anywhere.
var secrets = []string{"SECRET", "abc", "hunter2"}

// lockedBuffer is a log sink endpoints' jobs may write to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// openJSON opens a Notifier whose every log line, debug included, is
// written as JSON to the buffer it returns: what a journal would keep.
func openJSON(t *testing.T, cfg *config.Config) (*Notifier, *lockedBuffer) {
	t.Helper()
	buf := &lockedBuffer{}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(buf), zap.DebugLevel)
	n, err := New(cfg, zap.New(core), WithSleep((&sleeps{}).sleep), WithRand(rand.New(rand.NewPCG(1, 2))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	n.fresh = false
	return n, buf
}

// withSecrets adds a password and a query of secrets to an endpoint URL.
func withSecrets(t *testing.T, base, path string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return "http://user:hunter2@" + u.Host + path
}

// TestSecretsNotShown runs failing endpoints whose URLs carry a password
// and ?token=SECRET&key=abc: no log line, error, stat or dry-run line may
// carry them, and each still names the host.
func TestSecretsNotShown(t *testing.T) {
	failing := newRecorder(t, status(500))
	goneSrv := newRecorder(t, status(404))
	down := newRecorder(t, status(200))
	down.Close() // connection refused
	const query = "token=SECRET&key=abc"
	for _, tc := range []struct {
		name string
		kind config.EndpointKind
		srv  string
		path string
	}{
		{"indexnow answering 500", config.IndexNow, failing.URL, "/indexnow?" + query},
		{"indexnow down", config.IndexNow, down.URL, "/indexnow?" + query},
		{"ping answering 500", config.Ping, failing.URL, "/ping?sitemap={sitemap}&" + query},
		{"ping down", config.Ping, down.URL, "/ping?" + query + "&sitemap={sitemap}"},
		{"ping gone", config.Ping, goneSrv.URL, "/ping?sitemap={sitemap}&" + query},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, logs := openJSON(t, setup(t, tc.kind, withSecrets(t, tc.srv, tc.path), "", ""))
			n.Note(pages(2), []string{"https://static.test/sitemap_index.xml"}, true, false)
			plan := fmt.Sprintf("%+v", n.Plan()) // while owed
			res := n.Flush(context.Background())
			if res[0].Err == nil {
				t.Fatalf("result %+v, want a failure", res[0])
			}
			host := strings.TrimPrefix(tc.srv, "http://")
			shown := map[string]string{
				"log":   logs.String(),
				"error": res[0].Err.Error(),
				"stats": fmt.Sprintf("%+v", n.Stats()),
				"plan":  plan,
			}
			for what, s := range shown {
				for _, secret := range secrets {
					if strings.Contains(s, secret) {
						t.Errorf("the %s shows %q: %s", what, secret, s)
					}
				}
			}
			for _, what := range []string{"log", "plan"} {
				if !strings.Contains(shown[what], host) {
					t.Errorf("the %s does not name the host %s: %s", what, host, shown[what])
				}
			}
			if tc.srv == down.URL && !strings.Contains(shown["error"], host) {
				t.Errorf("the error does not name the host %s: %s", host, shown["error"])
			}
		})
	}
}
