package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHealth drives `sitemapd health` against a /healthz on 127.0.0.1:
// exit 0 on 200, 1 with the reason on anything else, no answer or none in
// time, and 1 (never 2, which Docker reserves) for a configuration without
// listen, or a bad one.
func TestHealth(t *testing.T) {
	var mu sync.Mutex
	answer, body, delay := http.StatusOK, `{"status":"ok","watches":3}`, time.Duration(0)
	set := func(a int, b string, d time.Duration) { mu.Lock(); answer, body, delay = a, b, d; mu.Unlock() }
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		a, b, d := answer, body, delay
		mu.Unlock()
		select {
		case <-time.After(d):
		case <-r.Context().Done(): // the client gave up
			return
		}
		w.WriteHeader(a)
		w.Write([]byte(b))
	}))
	defer srv.Close()
	cfg, _ := siteConfig(t, "listen: "+srv.Listener.Addr().String()+"\n")

	if code, out, stderr := runCLI("health", "-config", cfg); code != ExitOK || out != "ok\n" {
		t.Errorf("healthy: exit %d, %q %q", code, out, stderr)
	}
	mu.Lock()
	if len(paths) != 1 || paths[0] != "GET /healthz" {
		t.Errorf("requests %q", paths)
	}
	mu.Unlock()
	set(http.StatusServiceUnavailable, `{"status":"unhealthy","reason":"group blog not updated"}`, 0)
	if code, out, _ := runCLI("health", "-config", cfg); code != ExitFailure || !strings.Contains(out, "503 Service Unavailable: unhealthy: group blog not updated") {
		t.Errorf("unhealthy: exit %d, %q", code, out)
	}
	set(http.StatusNotFound, "404 page not found\n", 0)
	if code, out, _ := runCLI("health", "-config", cfg); code != ExitFailure || !strings.Contains(out, "404 Not Found: 404 page not found") {
		t.Errorf("not sitemapd: exit %d, %q", code, out)
	}
	// An answer a minute late: -timeout 100ms gives up long before. The
	// bound is what tells the flag kept from the 5 s default, with room
	// for a loaded machine.
	set(http.StatusOK, `{"status":"ok"}`, time.Minute)
	start := time.Now()
	if code, out, _ := runCLI("health", "-config", cfg, "-timeout", "100ms"); code != ExitFailure || !strings.Contains(out, "no answer") {
		t.Errorf("slow: exit %d, %q", code, out)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the timeout was not kept: %v", time.Since(start))
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	down, _ := siteConfig(t, "listen: "+addr+"\n")
	if code, out, _ := runCLI("health", "-config", down); code != ExitFailure || !strings.Contains(out, "unhealthy: no answer from http://"+addr+"/healthz") {
		t.Errorf("nothing listening: exit %d, %q", code, out)
	}
	none, _ := siteConfig(t, "")
	if code, _, stderr := runCLI("health", "-config", none); code != ExitFailure || !strings.Contains(stderr, none+": listen is not set") {
		t.Errorf("no listen: exit %d, %q", code, stderr)
	}
	bad, _ := siteConfig(t, "listen: nope\n")
	if code, _, stderr := runCLI("health", "-config", bad); code != ExitFailure || !strings.Contains(stderr, "listen:") {
		t.Errorf("bad config: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI("health", "-nope"); code != ExitFailure {
		t.Errorf("bad flag: exit %d, want 1", code)
	}
}

func TestDialAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:9477": "127.0.0.1:9477", ":9477": "127.0.0.1:9477", "0.0.0.0:9477": "127.0.0.1:9477",
		"[::]:9477": "[::1]:9477", "[::1]:9477": "[::1]:9477", "localhost:80": "localhost:80", "10.0.0.2:1": "10.0.0.2:1",
	} {
		if got := dialAddr(in); got != want {
			t.Errorf("dialAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
