package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPingDryRunShowsHold: an endpoint that answered 429 with a
// Retry-After is held (the state directory keeps it); `ping -dry-run`
// says until when, beside what is owed, and sends nothing.
func TestPingDryRunShowsHold(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	cfg, _ := writeConfig(t, "state_dir: state\nnotify: {attempts: 1, endpoints: [{name: crawler, kind: ping, url: \""+srv.URL+"/?sitemap={sitemap}\"}]}\n")
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: %s", stderr)
	}
	code, out, _ := runCLI("ping", "-config", cfg, "-dry-run")
	if code != ExitOK || strings.Contains(out, "held") {
		t.Fatalf("before any answer: exit %d, %q", code, out)
	}
	before := time.Now()
	if code, out, _ := runCLI("ping", "-config", cfg); code != ExitFailure || !strings.Contains(out, "crawler: sent 0, owed 1: ") {
		t.Fatalf("endpoint answering 429: exit %d, %q", code, out)
	}
	code, out, _ = runCLI("ping", "-config", cfg, "-dry-run")
	m := regexp.MustCompile(`(?m)^crawler: held until (\S+) \(.* from now\), as its Retry-After asked: nothing is sent to it before then$`).FindStringSubmatch(out)
	if code != ExitOK || m == nil || !strings.Contains(out, "crawler: GET ") {
		t.Fatalf("dry run while held: exit %d, %q", code, out)
	}
	until, err := time.Parse(time.RFC3339, m[1])
	if err != nil || until.Before(before.Add(time.Hour-time.Second)) || until.After(time.Now().Add(time.Hour+time.Second)) {
		t.Errorf("held until %s, want an hour after the 429 (%v)", m[1], err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Errorf("the endpoint was called %d times, want once (the dry runs send nothing)", calls)
	}
}
