package searchconsole

// A local fake of Google's OAuth 2 token endpoint and of the Search
// Console API's sitemaps resource. The token endpoint checks the JWT
// bearer assertion as Google documents it (RS256 over header.claims,
// verified with the public half of the key the test made; iss, scope,
// aud = token_uri, iat and exp); the API checks the bearer token and
// records each request exactly as it came (method, request URI, body),
// answering what the test queued.

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

const (
	testAccount = sctest.Account
	jwtGrant    = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// answer is what the fake API answers one request.
type answer struct {
	status int
	body   string
	header map[string]string
}

// request is one request the fake API received.
type request struct {
	Method, URI, Body, Auth string
}

type fakeGoogle struct {
	t        *testing.T
	srv      *httptest.Server
	pub      *rsa.PublicKey
	keyFile  string
	tokenURI string

	mu        sync.Mutex
	tokens    int // tokens issued
	tokenErr  *answer
	requests  []request
	answers   map[string][]answer // by method: queued answers; empty: the default
	views     map[string]string   // GET answers by feed URL (the sitemap's JSON)
	badTokens int                 // requests with no or a wrong bearer token
}

// newFakeGoogle starts the fake and writes a service account key file for
// it, with a key made by the test process (no private key is committed).
func newFakeGoogle(t *testing.T) *fakeGoogle {
	t.Helper()
	f := &fakeGoogle{t: t, answers: map[string][]answer{}, views: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", f.token)
	mux.HandleFunc("/webmasters/v3/", f.api)
	f.srv = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(f.srv.Close)
	f.tokenURI = f.srv.URL + "/token"
	f.keyFile = filepath.Join(t.TempDir(), "gsc.json")
	f.pub = sctest.WriteKey(t, f.keyFile, f.tokenURI, 0o600)
	return f
}

// token is the token endpoint: it issues a token only for an assertion
// signed by the test key with the claims Google requires.
func (f *fakeGoogle) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		f.t.Errorf("token request: %s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
	}
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("token request: %v", err)
	}
	if g := r.PostForm.Get("grant_type"); g != jwtGrant {
		f.t.Errorf("grant_type %q, want %q", g, jwtGrant)
	}
	if err := f.checkAssertion(r.PostForm.Get("assertion")); err != nil {
		f.t.Errorf("assertion: %v", err)
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tokenErr != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.tokenErr.status)
		io.WriteString(w, f.tokenErr.body)
		return
	}
	f.tokens++
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, f.tokens)
}

// checkAssertion verifies the JWT: its RS256 signature with the test
// key's public half, then its claims.
func (f *fakeGoogle) checkAssertion(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("%d parts, want 3", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(f.pub, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("signature: %v", err)
	}
	var header struct{ Alg, Typ, Kid string }
	var claims struct {
		Iss, Scope, Aud, Sub string
		Iat, Exp             int64
	}
	for i, v := range []any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return err
		}
	}
	now := time.Now().Unix()
	switch {
	case header.Alg != "RS256" || header.Typ != "JWT" || header.Kid != sctest.KeyID:
		return fmt.Errorf("header %+v, want RS256 JWT of the key's private_key_id", header)
	case claims.Iss != testAccount:
		return fmt.Errorf("iss %q, want %q", claims.Iss, testAccount)
	case claims.Scope != "https://www.googleapis.com/auth/webmasters":
		return fmt.Errorf("scope %q", claims.Scope)
	case claims.Aud != f.tokenURI:
		return fmt.Errorf("aud %q, want the key's token_uri %q", claims.Aud, f.tokenURI)
	case claims.Sub != "":
		return fmt.Errorf("sub %q: a service account acts as itself", claims.Sub)
	case claims.Iat > now+5 || claims.Iat < now-300:
		return fmt.Errorf("iat %d, now %d", claims.Iat, now)
	case claims.Exp <= now || claims.Exp-claims.Iat > 3600:
		return fmt.Errorf("exp %d: must be after now (%d) and at most an hour after iat (%d)", claims.Exp, now, claims.Iat)
	}
	return nil
}

// api is the Webmasters API: it records the request and answers.
func (f *fakeGoogle) api(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	auth := r.Header.Get("Authorization")
	f.requests = append(f.requests, request{Method: r.Method, URI: r.RequestURI, Body: string(body), Auth: auth})
	if auth != fmt.Sprintf("Bearer tok-%d", f.tokens) || f.tokens == 0 {
		f.badTokens++
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
		return
	}
	if q := f.answers[r.Method]; len(q) > 0 {
		a := q[0]
		f.answers[r.Method] = q[1:]
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
		return
	}
	switch r.Method {
	case http.MethodPut, http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		feed := r.URL.Path[strings.LastIndex(r.URL.Path, "/sitemaps/")+len("/sitemaps/"):]
		v, ok := f.views[feed]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"Sitemap not found.","errors":[{"reason":"notFound"}]}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, v)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// queue has the next request of method answered with a.
func (f *fakeGoogle) queue(method string, a ...answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[method] = append(f.answers[method], a...)
}

func (f *fakeGoogle) setView(feed, doc string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views[feed] = doc
}

// take returns the requests received since the last take.
func (f *fakeGoogle) take() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.requests
	f.requests = nil
	return r
}

func (f *fakeGoogle) issued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokens
}

// revoke makes the token issued last invalid, as Google does when a key
// is rotated or a token revoked before it expires.
func (f *fakeGoogle) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens++
}
