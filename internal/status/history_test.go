package status_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/status"
)

func open(t *testing.T, dir string, c *clock) (*status.History, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	h, err := status.Open(dir, zap.New(core), status.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, logs
}

func TestHistoryKeepsTheLastRecordsOnly(t *testing.T) {
	c := newClock(t0)
	h, _ := open(t, t.TempDir(), c)
	for i := range 120 {
		c.Advance(time.Minute)
		if err := h.RecordPublish(status.Publish{Trigger: "change", URLs: i}); err != nil {
			t.Fatal(err)
		}
		if err := h.RecordSubmission(status.Submission{Endpoint: "e", URLs: i, Status: 200}); err != nil {
			t.Fatal(err)
		}
	}
	a := h.Activity()
	if len(a.Publishes) != status.MaxPublishes || len(a.Submissions) != status.MaxSubmissions {
		t.Fatalf("kept %d publishes and %d submissions, want %d and %d", len(a.Publishes), len(a.Submissions), status.MaxPublishes, status.MaxSubmissions)
	}
	if a.Publishes[0].URLs != 119 || a.Publishes[len(a.Publishes)-1].URLs != 120-status.MaxPublishes {
		t.Errorf("publishes run from %d to %d, want the newest first: 119 to %d", a.Publishes[0].URLs, a.Publishes[len(a.Publishes)-1].URLs, 120-status.MaxPublishes)
	}
	if !a.Publishes[0].At.Equal(c.Now()) {
		t.Errorf("a record without a time got %v, want the clock's %v", a.Publishes[0].At, c.Now())
	}
	if len(a.Hourly) != status.Hours || len(a.Daily) != status.Days {
		t.Fatalf("%d hourly and %d daily buckets, want %d and %d", len(a.Hourly), len(a.Daily), status.Hours, status.Days)
	}
	// The buckets count every record, not just those kept in detail.
	pubs, subs := 0, 0
	for _, b := range a.Daily {
		pubs += b.Publishes
		subs += b.Submissions["e"].Total()
	}
	if pubs != 120 || subs != 120 {
		t.Errorf("daily buckets count %d publishes and %d submissions, want 120 each", pubs, subs)
	}
}

func TestBucketsRollOver(t *testing.T) {
	c := newClock(time.Date(2026, 3, 14, 15, 10, 0, 0, time.UTC))
	dir := t.TempDir()
	h, _ := open(t, dir, c)
	if err := h.RecordPublish(status.Publish{Moved: status.Sources{Content: 3}, Removed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := h.RecordSubmission(status.Submission{Endpoint: "e", Status: 503}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		at           time.Time
		hour, day    int // index of the record's bucket, -1: out of the window
		hourly, dayC int // changes counted in the windows
	}{
		{"same hour", time.Date(2026, 3, 14, 15, 59, 59, 0, time.UTC), 23, 30, 4, 4},
		{"next hour", time.Date(2026, 3, 14, 16, 0, 0, 0, time.UTC), 22, 30, 4, 4},
		{"23 hours on", time.Date(2026, 3, 15, 14, 0, 0, 0, time.UTC), 0, 29, 4, 4},
		{"24 hours on", time.Date(2026, 3, 15, 15, 0, 0, 0, time.UTC), -1, 29, 0, 4},
		{"30 days on", time.Date(2026, 4, 13, 23, 59, 0, 0, time.UTC), -1, 0, 0, 4},
		{"31 days on", time.Date(2026, 4, 14, 0, 0, 0, 0, time.UTC), -1, -1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.Set(tc.at)
			a := h.Activity()
			check := func(what string, bs []status.Bucket, idx, want int, step func(time.Time) time.Time) {
				t.Helper()
				got := 0
				for i, b := range bs {
					got += b.Changes()
					if i > 0 && !b.Start.Equal(step(bs[i-1].Start)) {
						t.Errorf("%s bucket %d starts %v after %v", what, i, b.Start, bs[i-1].Start)
					}
					if b.Changes() > 0 && i != idx {
						t.Errorf("%s: the record is in bucket %d, want %d", what, i, idx)
					}
					if b.Changes() > 0 && b.Submissions["e"][status.ServerError] != 1 {
						t.Errorf("%s: submissions %v, want one 5xx", what, b.Submissions)
					}
				}
				if got != want {
					t.Errorf("%s: %d changes, want %d", what, got, want)
				}
			}
			check("hourly", a.Hourly, tc.hour, tc.hourly, func(t time.Time) time.Time { return t.Add(time.Hour) })
			check("daily", a.Daily, tc.day, tc.dayC, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) })
			last := a.Hourly[len(a.Hourly)-1].Start
			if !last.Equal(tc.at.Truncate(time.Hour)) {
				t.Errorf("the last hourly bucket starts %v, want the current hour", last)
			}
		})
	}
	// What rolled out is gone from the file too, not only from the view.
	if err := h.RecordPublish(status.Publish{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, status.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Hours, Days []struct{ Start time.Time } }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Hours) != 1 || len(file.Days) != 1 {
		t.Errorf("the file keeps buckets out of the window: %+v", file)
	}
}

func TestHistorySurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	c := newClock(t0)
	h, _ := open(t, dir, c)
	month().record(t, h, c)
	before := h.Activity()
	h.Close()

	h2, logs := open(t, dir, c)
	after := h2.Activity()
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(after)
	if !bytes.Equal(b1, b2) {
		t.Errorf("after a restart the history differs:\nbefore %s\nafter  %s", b1, b2)
	}
	if logs.Len() != 0 {
		t.Errorf("a good file was logged about: %v", logs.All())
	}
	if len(after.Publishes) != status.MaxPublishes || after.Daily[len(after.Daily)-1].Publishes == 0 {
		t.Errorf("the month was not kept: %d publishes, today %d", len(after.Publishes), after.Daily[len(after.Daily)-1].Publishes)
	}
}

func TestDamagedFileIsSetAside(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("\x00\x01not json"), 0o600) }},
		{"truncated", func(p string) error {
			return os.WriteFile(p, []byte(`{"version":1,"hours":[{"start":"2026-03-14T15:00:00Z","publ`), 0o600)
		}},
		{"another version", func(p string) error { return os.WriteFile(p, []byte(`{"version":99}`), 0o600) }},
		{"trailing bytes", func(p string) error { return os.WriteFile(p, []byte(`{"version":1} {}`), 0o600) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"a symlink", func(p string) error { return os.Symlink("/etc/passwd", p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, status.FileName)
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			c := newClock(t0)
			h, logs := open(t, dir, c)
			if a := h.Activity(); len(a.Publishes) != 0 {
				t.Errorf("a damaged file gave %d publishes", len(a.Publishes))
			}
			warned := logs.FilterMessageSnippet("moved it aside").FilterLevelExact(zapcore.WarnLevel)
			if warned.Len() != 1 {
				t.Errorf("want one warning that the file was moved aside, got %v", logs.All())
			}
			aside, _ := filepath.Glob(path + ".corrupt-*")
			if len(aside) != 1 {
				t.Fatalf("set aside as %v, want one file", aside)
			}
			if err := h.RecordPublish(status.Publish{Trigger: "change"}); err != nil {
				t.Fatalf("a fresh history could not be saved: %v", err)
			}
			h.Close()
			h2, logs := open(t, dir, c)
			if a := h2.Activity(); len(a.Publishes) != 1 || logs.Len() != 0 {
				t.Errorf("after the fresh start: %d publishes, log %v", len(a.Publishes), logs.All())
			}
		})
	}
}

// TestKillBeforeRenameKeepsTheOldFile kills a process that is saving the
// history after its new file is written and before it is renamed in
// place: the next start reads the old file whole.
func TestKillBeforeRenameKeepsTheOldFile(t *testing.T) {
	if dir := os.Getenv("STATUS_KILL_DIR"); dir != "" {
		killedChild(dir)
		return
	}
	dir := t.TempDir()
	c := newClock(t0)
	h, _ := open(t, dir, c)
	if err := h.RecordPublish(status.Publish{Trigger: "change", URLs: 1}); err != nil {
		t.Fatal(err)
	}
	h.Close()
	old, err := os.ReadFile(filepath.Join(dir, status.FileName))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillBeforeRenameKeepsTheOldFile$")
	cmd.Env = append(os.Environ(), "STATUS_KILL_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "written" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child said %q (%v), want written", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	now, err := os.ReadFile(filepath.Join(dir, status.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(now, old) {
		t.Fatalf("the kill changed the file:\nbefore %s\nafter  %s", old, now)
	}
	temps, _ := filepath.Glob(filepath.Join(dir, ".sitemapd-*.tmp"))
	if len(temps) != 1 {
		t.Errorf("temp files %v: want the one the child wrote (or the test proves nothing)", temps)
	}
	h2, logs := open(t, dir, c)
	if a := h2.Activity(); len(a.Publishes) != 1 || a.Publishes[0].URLs != 1 || logs.Len() != 0 {
		t.Errorf("after the kill: publishes %+v, log %v", a.Publishes, logs.All())
	}
}

// killedChild saves a second publish and stops between the write and
// the rename, saying so on stdout, until it is killed.
func killedChild(dir string) {
	h, err := status.Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	status.SetBeforeRename(h, func() {
		fmt.Println("written")
		select {} // killed here
	})
	h.RecordPublish(status.Publish{Trigger: "change", URLs: 2})
	os.Exit(3) // never reached
}

func TestClassify(t *testing.T) {
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name string
		err  error
		want status.ErrorClass
	}{
		{"none", nil, status.NoError},
		{"canceled", fmt.Errorf("post: %w", context.Canceled), status.Canceled},
		{"deadline", fmt.Errorf("post: %w", context.DeadlineExceeded), status.Timeout},
		{"net timeout", timeout, status.Timeout},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, status.Network},
		{"dns", &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, status.Network},
		{"other", errors.New("HTTP 301 redirects to another host"), status.OtherError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := status.Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   status.Answer
	}{
		{200, status.Accepted}, {202, status.Accepted}, {301, status.OtherAnswer}, {400, status.Rejected},
		{429, status.Rejected}, {500, status.ServerError}, {0, status.NoAnswer}, {999, status.OtherAnswer},
	} {
		if got := (status.Submission{Status: tc.status}).Answer(); got != tc.want {
			t.Errorf("status %d: %v, want %v", tc.status, got, tc.want)
		}
	}
}

func TestErrorClassText(t *testing.T) {
	for c := status.NoError; c <= status.OtherError; c++ {
		b, _ := c.MarshalText()
		var back status.ErrorClass
		back.UnmarshalText(b)
		if back != c {
			t.Errorf("%v read back as %v", c, back)
		}
	}
	var c status.ErrorClass
	c.UnmarshalText([]byte("from a later version"))
	if c != status.OtherError {
		t.Errorf("an unknown class read as %v, want OtherError", c)
	}
}
