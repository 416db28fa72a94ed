package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
	"go.uber.org/zap"
)

// TestTakeOwed: a page published with a version the mirror holds is not
// owed when another server marked its URL sent to an endpoint after the
// version was recorded; it is when the mark came first (the mark was of
// an older version), when the version is this server's own (queued), or
// for an endpoint the mark is not of. Marks go an hour after they came,
// and with them the revisions kept for them.
func TestTakeOwed(t *testing.T) {
	a := newAgreement(nil, "/p/", zap.NewNop())
	a.SetPageURL(func(rel string) string { return "https://static.test/" + rel })
	a.loadedAt(100, 0, nil) // the mirror was read at revision 100, no mark then
	old, recent, own := versionOf("old.html", 1), versionOf("recent.html", 1), versionOf("own.html", 1)
	a.mu.Lock()
	a.mirror[old], a.mirror[recent] = 10, 20
	a.recorded(recent, 150)
	a.mu.Unlock()
	h := func(rel string) map[string]bool { return map[string]bool{urlHash("https://static.test/" + rel): true} }
	a.noteMark("in", h("old.html"), 120)    // after old (at most 100)
	a.noteMark("in", h("recent.html"), 140) // before recent (150)
	a.noteMark("other", h("recent.html"), 160)
	a.noteMark("in", h("own.html"), 170)

	a.Agree("old.html", 1, 0, 5)
	a.Agree("recent.html", 1, 0, 5)
	a.Agree("own.html", 1, 0, 5) // not in the mirror: this server's version
	_, got := a.TakeOwed()
	want := map[string][]string{"in": {"https://static.test/old.html"}, "other": {"https://static.test/recent.html"}}
	if len(got) != len(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	for ep, urls := range want {
		if len(got[ep]) != len(urls) || !got[ep][urls[0]] {
			t.Errorf("sent to %s: %v, want %v", ep, got[ep], urls)
		}
	}
	if a.mirror[own] != 0 || func() bool { _, s := a.TakeOwed(); return len(s) != 0 }() {
		t.Error("TakeSent does not forget what it returned")
	}

	// An hour later the marks are gone, and the revisions seen before
	// the last sweep with them: a mark to come is after those versions.
	a.mu.Lock()
	a.pruneLocked(time.Now().Add(SentTTL*time.Second + time.Minute))
	marks, fresh, floor := len(a.marks), len(a.fresh), a.floor
	a.mu.Unlock()
	if marks != 0 || fresh != 0 || floor != 150 {
		t.Errorf("after an hour: %d marks, %d revisions, floor %d; want none, none, 150", marks, fresh, floor)
	}
	a.noteMark("in", h("recent.html"), 171)
	a.Agree("recent.html", 1, 0, 5)
	if _, got := a.TakeOwed(); !got["in"]["https://static.test/recent.html"] {
		t.Errorf("a mark after the sweep: sent %v, want recent.html to in", got)
	}
}

// TestLateCopyAfterLoad: a server that reads the records after the
// leader marked a change sent, then receives its late copy, does not owe
// it: the version was recorded before the mark. A version recorded
// after the mark (a later change of another page the mark named) stays
// owed. Before, a server that loaded after a mark could not tell, and
// owed both (real etcd).
func TestLateCopyAfterLoad(t *testing.T) {
	c := etcdtest.Start(t, 1)
	const prefix = "/late/"
	url := func(rel string) string { return "https://static.test/" + rel }
	a := server(t, c, prefix)
	a.Agree("before.html", 1, 0, 100)
	a.Agree("after.html", 1, 0, 100)
	eventually(t, "a's versions recorded", func() bool { return a.Pending() == 0 })
	ctx := context.Background()
	if err := a.Ledger("web-a").Sent(ctx, "in", []string{url("before.html"), url("after.html")}); err != nil {
		t.Fatal(err)
	}
	a.Agree("after.html", 2, 1, 200) // a change after the mark
	eventually(t, "a's new version recorded", func() bool { return a.Pending() == 0 })

	b := server(t, c, prefix) // loads the records after the mark
	b.SetPageURL(url)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		b.Ledger("web-b").Watch(wctx, func(string, func(string) bool) int { return 0 })
		close(done)
	}()
	defer func() { cancel(); <-done }()
	eventually(t, "b reads the mark", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.marks) == 2 })

	// b's copies change late: other bytes than it knew, the fleet's versions.
	if got := b.Agree("before.html", 1, 9, 50); got != 100 {
		t.Fatalf("before.html: time %d, want the fleet's 100", got)
	}
	if got := b.Agree("after.html", 2, 9, 50); got != 200 {
		t.Fatalf("after.html: time %d, want the fleet's 200", got)
	}
	_, sent := b.TakeOwed()
	if !sent["in"][url("before.html")] {
		t.Errorf("the late copy of a change marked sent before b loaded is owed again: sent %v", sent)
	}
	if sent["in"][url("after.html")] {
		t.Errorf("a change recorded after the mark counts as sent: %v", sent)
	}
}
