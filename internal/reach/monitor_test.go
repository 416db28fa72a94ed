package reach

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestMonitorReports: a problem is logged once when it appears, kept in
// Status while it lasts (whatever its detail says at each check), and
// logged once when it clears; a site served as written is said so once.
func TestMonitorReports(t *testing.T) {
	var mode atomic.Int32 // 0 served as written, 1 key file redirected, 2 and robots.txt 404
	keyPath := "/" + testKey + ".txt"
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		switch m := mode.Load(); {
		case m >= 1 && r.URL.Path == keyPath:
			redirect("/keys/" + time.Now().Format("150405.000000"))(w) // a detail that changes
		case m >= 2 && r.URL.Path == "/robots.txt":
			notFound(w)
		default:
			return false
		}
		return true
	}, false)
	s.cfg.SelfCheck.Sitemaps, s.cfg.SelfCheck.Pages, s.cfg.SelfCheck.Timeout = 1, 1, 5*time.Second
	core, logs := observer.New(zapcore.InfoLevel)
	m := NewMonitor(s.cfg, zap.New(core), "test")
	steps := []struct {
		mode     int32
		logged   []string // the messages of this check, in order
		problems []string // Status().Problems as what and problem
	}{
		{0, []string{"self-check: the public view serves what sitemapd wrote"}, nil},
		{0, nil, nil},
		{1, []string{"self-check: the public view differs from what sitemapd wrote"}, []string{"key file redirect"}},
		{1, nil, []string{"key file redirect"}},
		{2, []string{"self-check: the public view differs from what sitemapd wrote"}, []string{"key file redirect", "robots.txt status"}},
		{1, []string{"self-check: cleared"}, []string{"key file redirect"}},
		{0, []string{"self-check: cleared", "self-check: the public view serves what sitemapd wrote"}, nil},
		{0, nil, nil},
	}
	for i, st := range steps {
		mode.Store(st.mode)
		m.Check(context.Background())
		var got []string
		for _, e := range logs.TakeAll() {
			got = append(got, e.Message)
			if e.Message == "self-check: the public view differs from what sitemapd wrote" && (e.Level != zapcore.WarnLevel || e.ContextMap()["url"] == "") {
				t.Errorf("step %d: %v logged without the URL or not as a warning", i, e)
			}
		}
		if strings.Join(got, "|") != strings.Join(st.logged, "|") {
			t.Errorf("step %d: logged %q, want %q", i, got, st.logged)
		}
		status := m.Status()
		var probs []string
		for _, p := range status.Problems {
			probs = append(probs, p.What.String()+" "+p.Problem.String())
		}
		if strings.Join(probs, "|") != strings.Join(st.problems, "|") || status.Checks != int64(i+1) || status.Checked.IsZero() {
			t.Errorf("step %d: status %d checks, problems %q; want %d, %q", i, status.Checks, probs, i+1, st.problems)
		}
	}
}

// TestMonitorRun: Run checks after a publish (a burst of them, once) and
// on the interval, and stops with its context.
func TestMonitorRun(t *testing.T) {
	var checks atomic.Int32
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/robots.txt" {
			checks.Add(1)
		}
		return false
	}, false)
	sc := &s.cfg.SelfCheck
	sc.Interval, sc.AfterPublish, sc.Timeout = time.Hour, time.Second, 5*time.Second
	m := NewMonitor(s.cfg, zap.NewNop(), "test")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	for range 5 {
		m.Published()
	}
	waitFor(t, func() bool { return m.Status().Checks == 1 }, "a check after the publishes")
	cancel()
	<-done
	if n := checks.Load(); n != 1 {
		t.Fatalf("%d checks after a burst of publishes, want 1", n)
	}
	// On the interval alone.
	sc.Interval = 20 * time.Millisecond
	m = NewMonitor(s.cfg, zap.NewNop(), "test")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go m.Run(ctx)
	waitFor(t, func() bool { return m.Status().Checks >= 2 }, "two checks on the interval")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in 30s", what)
		}
	}
}
