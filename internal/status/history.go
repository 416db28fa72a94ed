package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// FileName is the History's file in the site's state directory.
const FileName = "status.history"

// How much the History keeps.
const (
	Hours          = 24 // hourly buckets: the last day
	Days           = 31 // daily buckets: the last month
	MaxPublishes   = 50 // publishes kept in detail
	MaxSubmissions = 50 // submissions kept in detail
)

// fileVersion is bumped whenever the file's meaning changes; a file of
// another version is set aside like a damaged one, never misread.
const fileVersion = 1

// maxFileSize bounds what Open reads. A full history is some tens of
// kilobytes (a bucket per hour and day, a hundred records); anything near
// this is not one of ours.
const maxFileSize = 4 << 20

// Bucket counts what happened in one hour or one day (UTC).
type Bucket struct {
	Start     time.Time `json:"start"`
	Publishes int       `json:"publishes"`
	Failed    int       `json:"failed,omitzero"` // publishes that did not land
	Moved     Sources   `json:"moved"`           // lastmods moved, by source
	Removed   int       `json:"removed"`         // URLs no longer listed
	// Submissions count the requests to each endpoint (by its name), by
	// answer.
	Submissions map[string]AnswerCounts `json:"submissions,omitempty"`
}

// Changes is the bucket's lastmods moved and URLs removed.
func (b Bucket) Changes() int { return b.Moved.Total() + b.Removed }

// Activity is what the History shows: every bucket of the last day and
// month, oldest first, those without activity zero; and the recent
// records, newest first.
type Activity struct {
	Hourly      []Bucket // Hours buckets, the last the current hour
	Daily       []Bucket // Days buckets, the last today
	Publishes   []Publish
	Submissions []Submission
}

// History remembers a site's publishes and submissions, bounded, in its
// state directory, so that a restart keeps the month. It is safe for
// concurrent use.
type History struct {
	log  *zap.Logger
	now  func() time.Time
	path string
	pub  *publish.Publisher
	// beforeRename runs between writing the new file and renaming it in
	// place (tests kill the process there).
	beforeRename func()

	mu  sync.Mutex
	doc historyDoc
}

// historyDoc is the file's content. Records are oldest first.
type historyDoc struct {
	Version     int          `json:"version"`
	Hours       []Bucket     `json:"hours"`
	Days        []Bucket     `json:"days"`
	Publishes   []Publish    `json:"publishes"`
	Submissions []Submission `json:"submissions"`
}

// Option changes how a History works (test seams).
type Option func(*History)

// WithClock sets the clock the History buckets by and takes a record's
// missing time from.
func WithClock(now func() time.Time) Option { return func(h *History) { h.now = now } }

// Open returns the History kept in dir (the site's state directory,
// created if missing), empty when there is none. A file that cannot be
// read or parsed, or of another version, is moved aside with a warning
// and a fresh history starts: it is a picture for people, never a reason
// to stop the daemon. Close releases the directory.
func Open(dir string, log *zap.Logger, opts ...Option) (*History, error) {
	if log == nil {
		log = zap.NewNop()
	}
	h := &History{log: log.Named("status"), now: time.Now, path: filepath.Join(dir, FileName)}
	for _, o := range opts {
		o(h)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open status history: create state directory: %w", err)
	}
	// Written as the notifier writes its ledger beside it (publish's state
	// files: temp file, rename), but not synced: the daemon saves it at
	// every publish, before it says the publish is done, and two fsyncs
	// there (file and directory) are a change's latency on a busy disk
	// (bench/README.md). A crash may lose its last records, or, at worst,
	// leave a file that does not parse, moved aside for a fresh one: the
	// charts lose counts, nothing else does.
	pub, err := publish.OpenStateSync(dir, publish.SyncNone)
	if err != nil {
		return nil, fmt.Errorf("open status history: %w", err)
	}
	h.pub = pub
	h.doc = h.read()
	h.doc.prune(h.now())
	return h, nil
}

// Close releases the state directory.
func (h *History) Close() error { return h.pub.Close() }

// read loads the file, or starts afresh.
func (h *History) read() historyDoc {
	fresh := historyDoc{Version: fileVersion}
	// Never through a link, never a FIFO, never more than a history holds.
	data, err := safefile.ReadFile(h.path, maxFileSize, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh
	}
	var doc historyDoc
	if err == nil {
		err = json.Unmarshal(data, &doc)
		if err == nil && doc.Version != fileVersion {
			err = fmt.Errorf("version %d, want %d", doc.Version, fileVersion)
		}
	}
	if err == nil {
		// Buckets are looked up by binary search: a file edited by hand
		// must not hide its counts.
		byStart := func(a, b Bucket) int { return a.Start.Compare(b.Start) }
		slices.SortStableFunc(doc.Hours, byStart)
		slices.SortStableFunc(doc.Days, byStart)
		return doc
	}
	aside, rerr := publish.Quarantine(h.path)
	if rerr != nil {
		h.log.Warn("status history is damaged and cannot be moved aside; starting a fresh one, which replaces it at the next record",
			zap.String("path", h.path), zap.Error(err), zap.NamedError("move_error", rerr))
		return fresh
	}
	h.log.Warn("status history is damaged; moved it aside and starting a fresh one: the charts start empty",
		zap.String("path", h.path), zap.String("moved_to", aside), zap.Error(err))
	return fresh
}

// RecordPublish adds a publish and saves the history. A zero p.At is now.
// The error, if any, is the save's: the record is kept in memory anyway.
func (h *History) RecordPublish(p Publish) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if p.At.IsZero() {
		p.At = now
	}
	add := func(b *Bucket) {
		b.Publishes++
		if p.Failed {
			b.Failed++
		}
		b.Moved = b.Moved.Add(p.Moved)
		b.Removed += p.Removed
	}
	add(bucket(&h.doc.Hours, hourOf(p.At)))
	add(bucket(&h.doc.Days, dayOf(p.At)))
	h.doc.Publishes = appendBounded(h.doc.Publishes, p, MaxPublishes)
	h.doc.prune(now)
	return h.saveLocked()
}

// RecordSubmission adds a request to an endpoint and saves the history.
// A zero s.At is now. The error, if any, is the save's.
func (h *History) RecordSubmission(s Submission) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if s.At.IsZero() {
		s.At = now
	}
	if s.Status != 0 {
		s.Error = NoError // an answer came: nothing kept it away
	}
	add := func(b *Bucket) {
		if b.Submissions == nil {
			b.Submissions = map[string]AnswerCounts{}
		}
		c := b.Submissions[s.Endpoint]
		c[s.Answer()]++
		b.Submissions[s.Endpoint] = c
	}
	add(bucket(&h.doc.Hours, hourOf(s.At)))
	add(bucket(&h.doc.Days, dayOf(s.At)))
	h.doc.Submissions = appendBounded(h.doc.Submissions, s, MaxSubmissions)
	h.doc.prune(now)
	return h.saveLocked()
}

// Activity returns what the History holds now, for a Snapshot.
func (h *History) Activity() Activity {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	h.doc.prune(now)
	a := Activity{
		Hourly:      window(h.doc.Hours, hourOf(now), Hours, func(t time.Time, n int) time.Time { return t.Add(time.Duration(n) * time.Hour) }),
		Daily:       window(h.doc.Days, dayOf(now), Days, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, n) }),
		Publishes:   slices.Clone(h.doc.Publishes),
		Submissions: slices.Clone(h.doc.Submissions),
	}
	slices.Reverse(a.Publishes)
	slices.Reverse(a.Submissions)
	return a
}

// saveLocked writes the history whole. h.mu must be held. A state
// directory replaced while sitemapd ran is refused: the file would land in
// the directory held open, out of sight of the next start. It is written
// as a stream, of one piece, for the seam between write and rename.
func (h *History) saveLocked() error {
	data, err := json.Marshal(&h.doc)
	if err != nil {
		return fmt.Errorf("save status history: %w", err)
	}
	s, err := h.pub.Create(FileName)
	if err != nil {
		return fmt.Errorf("save status history: %w", err)
	}
	if _, err := s.Write(data); err != nil {
		s.Abort()
		return fmt.Errorf("save status history: %w", err)
	}
	if h.beforeRename != nil {
		h.beforeRename()
	}
	if err := s.Commit(); err != nil {
		return fmt.Errorf("save status history: %w", err)
	}
	return nil
}

// prune drops the buckets outside the windows that end now, and records
// beyond the bounds (a file written by a build that kept more).
func (d *historyDoc) prune(now time.Time) {
	d.Version = fileVersion
	hour, day := hourOf(now), dayOf(now)
	first := hour.Add(-(Hours - 1) * time.Hour)
	d.Hours = slices.DeleteFunc(d.Hours, func(b Bucket) bool { return b.Start.Before(first) || b.Start.After(hour) })
	firstDay := day.AddDate(0, 0, -(Days - 1))
	d.Days = slices.DeleteFunc(d.Days, func(b Bucket) bool { return b.Start.Before(firstDay) || b.Start.After(day) })
	if n := len(d.Publishes) - MaxPublishes; n > 0 {
		d.Publishes = slices.Delete(d.Publishes, 0, n)
	}
	if n := len(d.Submissions) - MaxSubmissions; n > 0 {
		d.Submissions = slices.Delete(d.Submissions, 0, n)
	}
}

// bucket returns the bucket starting at start, made (in order) if missing.
func bucket(bs *[]Bucket, start time.Time) *Bucket {
	i, found := slices.BinarySearchFunc(*bs, start, func(b Bucket, t time.Time) int { return b.Start.Compare(t) })
	if !found {
		*bs = slices.Insert(*bs, i, Bucket{Start: start})
	}
	return &(*bs)[i]
}

// window returns n buckets ending with the one starting at last, those
// missing from bs zero, each a copy.
func window(bs []Bucket, last time.Time, n int, step func(time.Time, int) time.Time) []Bucket {
	out := make([]Bucket, n)
	for i := range out {
		start := step(last, i-(n-1))
		out[i] = Bucket{Start: start}
		j, found := slices.BinarySearchFunc(bs, start, func(b Bucket, t time.Time) int { return b.Start.Compare(t) })
		if found {
			out[i] = bs[j]
			out[i].Start = start // in UTC, as read from a file or not
			out[i].Submissions = maps.Clone(bs[j].Submissions)
		}
	}
	return out
}

// appendBounded appends v, dropping the oldest beyond max.
func appendBounded[T any](s []T, v T, max int) []T {
	s = append(s, v)
	if n := len(s) - max; n > 0 {
		s = slices.Delete(s, 0, n)
	}
	return s
}

// hourOf is the start of t's hour; dayOf of its day; both UTC, so that a
// bucket means the same hour after a change of the machine's zone.
func hourOf(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
