package build

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestPublishedTake: the model takes the states a run staged, a nil state
// forgetting its group, and keeps the others as they are.
func TestPublishedTake(t *testing.T) {
	kept := &group{parts: []string{"kept/sitemap.xml"}, urls: 3}
	for _, tc := range []struct {
		name string
		next map[string]*group
		want []string // groups after, sorted
	}{
		{"nothing staged", nil, []string{"gone", "kept", "old"}},
		{"replaced", map[string]*group{"old": {urls: 9}}, []string{"gone", "kept", "old"}},
		{"added", map[string]*group{"new": {urls: 1}}, []string{"gone", "kept", "new", "old"}},
		{"forgotten", map[string]*group{"gone": nil}, []string{"kept", "old"}},
		{"forgotten, never published", map[string]*group{"never": nil}, []string{"gone", "kept", "old"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newPublished(1, nil)
			m.groups = map[string]*group{"kept": kept, "old": {urls: 2}, "gone": {urls: 1}}
			m.take(tc.next)
			if got := slices.Sorted(maps.Keys(m.groups)); !slices.Equal(got, tc.want) {
				t.Errorf("groups %v, want %v", got, tc.want)
			}
			if m.groups["kept"] != kept {
				t.Error("a group the run did not stage was replaced")
			}
			for dir, g := range tc.next {
				if g != nil && m.groups[dir] != g {
					t.Errorf("%s: not the state staged", dir)
				}
			}
		})
	}
}

// TestRunGroupStagesACopy: a run changes a copy of a group's state, which
// the model sees only once it takes it; a group the run forgot starts
// anew if staged again.
func TestRunGroupStagesACopy(t *testing.T) {
	m := newPublished(1, nil)
	m.groups["docs"] = &group{parts: []string{"docs/sitemap.xml"}, urls: 4}
	r := &run{next: map[string]*group{}}

	g := r.group(m, "docs")
	g.parts, g.failed, g.urls = []string{"docs/sitemap-a.xml"}, true, 7
	if pub := m.groups["docs"]; pub.failed || pub.urls != 4 || !slices.Equal(pub.parts, []string{"docs/sitemap.xml"}) {
		t.Fatalf("staging changed the model: %+v", *pub)
	}
	if r.group(m, "docs") != g {
		t.Fatal("the run's state of a group is not the one it staged")
	}
	if fresh := r.group(m, "new"); fresh.urls != -1 || fresh.parts != nil {
		t.Errorf("a group new to the model starts as %+v, want nothing known", *fresh)
	}
	r.next["docs"] = nil // nothing to keep
	if again := r.group(m, "docs"); again.urls != -1 || again.parts != nil {
		t.Errorf("a group the run forgot comes back as %+v, not anew", *again)
	}
	r.next["docs"] = g
	m.take(r.next)
	if m.groups["docs"] != g {
		t.Error("the model did not take the state staged")
	}
}

// TestGroupsFor: a change of a directory rebuilds its group and the
// groups that list it through a symlink.
func TestGroupsFor(t *testing.T) {
	m := newPublished(1, nil)
	m.groups = map[string]*group{
		"blog":  {links: []string{"shared"}},
		"docs":  {links: []string{"shared/img", "vendor"}},
		"other": {},
	}
	for _, tc := range []struct {
		dirs, want []string
	}{
		{[]string{"other/x"}, []string{"other"}},
		{[]string{"shared/img/a"}, []string{"blog", "docs", "shared"}},
		{[]string{"shared"}, []string{"blog", "shared"}},
		{[]string{"vendor2"}, []string{"vendor2"}},
		{[]string{"", "vendor"}, []string{"", "docs", "vendor"}},
	} {
		if got := m.groupsFor(tc.dirs); !slices.Equal(got, tc.want) {
			t.Errorf("groupsFor(%q) = %q, want %q", tc.dirs, got, tc.want)
		}
	}
}

// TestPublishedQueries: what the engine reports of what is published.
func TestPublishedQueries(t *testing.T) {
	now := time.Unix(1000, 0)
	m := newPublished(1, nil)
	m.groups = map[string]*group{
		"a": {urls: 3, failed: true},
		"b": {urls: -1, due: now.Add(time.Hour).UnixNano()},
		"c": {urls: 5, due: now.Add(-time.Minute).UnixNano()},
		"d": {urls: 0, failed: true},
	}
	if got := m.failed(); !slices.Equal(got, []string{"a", "d"}) {
		t.Errorf("failed = %v", got)
	}
	if groups, urls := m.listed(); groups != 3 || urls != 8 {
		t.Errorf("listed = %d groups, %d URLs; want 3, 8 (b is not known)", groups, urls)
	}
	if got := m.due(); got != now.Add(-time.Minute).UnixNano() {
		t.Errorf("due = %v", time.Unix(0, got))
	}
	if got := m.dueGroups(now); !slices.Equal(got, []string{"c"}) {
		t.Errorf("dueGroups = %v", got)
	}
}

// TestRefusedPublishLeavesTheModel: a publish the shrink guard refuses
// stages its groups aside; the model is left as it was (but the groups
// marked for a retry), with nothing to restore.
func TestRefusedPublishLeavesTheModel(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	for i := range 6 {
		mustWrite(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), defaultMTime)
	}
	mustWrite(t, filepath.Join(root, "index.html"), defaultMTime)
	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges())
	mustBuild(t, e)
	before := map[string]group{}
	for dir, g := range e.model.groups {
		before[dir] = *g
	}
	for i := range 5 {
		writeFile(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), `<meta name=robots content=noindex>`, defaultMTime.Add(time.Second))
	}
	var se *ShrinkError
	if _, err := e.Update(context.Background(), []string{"docs"}, nil); !errors.As(err, &se) {
		t.Fatalf("update noindexing 5 of 7 pages: err = %v, want a refusal", err)
	}
	for dir, was := range before {
		now := *e.model.groups[dir]
		if dir == "docs" {
			if !now.failed {
				t.Error("docs is not marked for a retry")
			}
			now.failed = was.failed
		}
		if !reflect.DeepEqual(now, was) {
			t.Errorf("%s: model changed by a refused publish:\n now %+v\n was %+v", dir, now, was)
		}
	}
	if len(e.model.groups) != len(before) {
		t.Errorf("model holds %d groups, was %d", len(e.model.groups), len(before))
	}
}

// TestProgressCounts: the entries of the walks done and of the one in
// progress, read from other goroutines while walks run.
func TestProgressCounts(t *testing.T) {
	root := site(t, "index.html", "a/b.html", "a/c.html", "d/e.html")
	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last int64
		for range 1000 {
			n, _ := e.Progress()
			if n < last {
				t.Errorf("Progress went back from %d to %d", last, n)
				return
			}
			last = n
		}
	}()
	mustBuild(t, e)
	first, _ := e.Progress()
	if first == 0 {
		t.Error("a full build read no entries")
	}
	if _, err := e.Rebuild(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	<-done
	if n, _ := e.Progress(); n <= first {
		t.Errorf("entries %d after a rebuild, %d before: they only grow", n, first)
	}
	if e.progress.walking != nil {
		t.Error("a walk is still counted as in progress")
	}
}

// TestEncoderCompress: gzip output is a function of its input (no name,
// no time), and reads back; without gzip the bytes pass as they are.
func TestEncoderCompress(t *testing.T) {
	data := []byte(`<?xml version="1.0"?><urlset></urlset>`)
	c := &encoder{gzip: true}
	a, err := c.compress(data)
	if err != nil {
		t.Fatal(err)
	}
	a = slices.Clone(a) // valid until the next call
	b, err := c.compress(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("equal input gave other bytes")
	}
	if got := gunzip(t, b); !slices.Equal(got, data) {
		t.Errorf("read back %q", got)
	}
	plain := &encoder{}
	if got, _ := plain.compress(data); !slices.Equal(got, data) {
		t.Errorf("without gzip: %q", got)
	}
}
