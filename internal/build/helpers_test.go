package build

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

// defaultMTime is the mtime of manifest files that name none.
var defaultMTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// materialize creates the tree a manifest describes (see
// testdata/golden/hostile/tree.txt) under root. Symlink targets may use
// $OUT for a directory outside the root, which is created with one page.
func materialize(t testing.TB, manifest, root string) {
	t.Helper()
	outside := filepath.Join(filepath.Dir(root), "outside")
	mustWrite(t, filepath.Join(outside, "secret.html"), defaultMTime)
	f, err := os.Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		args, err := quotedArgs(rest)
		if err != nil {
			t.Fatalf("%s:%d: %v", manifest, n, err)
		}
		switch kind {
		case "f":
			mt := defaultMTime
			if len(args) > 1 {
				if args[1] == "future" {
					mt = time.Now().Add(365 * 24 * time.Hour)
				} else if mt, err = time.Parse(time.RFC3339, args[1]); err != nil {
					t.Fatalf("%s:%d: %v", manifest, n, err)
				}
			}
			mustWrite(t, filepath.Join(root, args[0]), mt)
		case "c": // c "path" "content" [mtime]: a page with this content
			mt := defaultMTime
			if len(args) > 2 {
				if mt, err = time.Parse(time.RFC3339, args[2]); err != nil {
					t.Fatalf("%s:%d: %v", manifest, n, err)
				}
			}
			writeFile(t, filepath.Join(root, args[0]), args[1], mt)
		case "r": // r "path" "before" "filler" "count" "after": filler repeated count times
			n, err := strconv.Atoi(args[3])
			if err != nil {
				t.Fatalf("%s:%d: count: %v", manifest, n, err)
			}
			writeFile(t, filepath.Join(root, args[0]), args[1]+strings.Repeat(args[2], n)+args[4], defaultMTime)
		case "d":
			if err := os.MkdirAll(filepath.Join(root, args[0]), 0o755); err != nil {
				t.Fatal(err)
			}
		case "l":
			p := filepath.Join(root, args[0])
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(strings.ReplaceAll(args[1], "$OUT", outside), p); err != nil {
				t.Fatal(err)
			}
		case "gen":
			count, _ := strconv.Atoi(args[1])
			for i := range count {
				mustWrite(t, filepath.Join(root, args[0], fmt.Sprintf(args[2], i)), defaultMTime.Add(time.Duration(i)*time.Second))
			}
		default:
			t.Fatalf("%s:%d: unknown entry %q", manifest, n, kind)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// quotedArgs splits `"a b" 2024-01-01T00:00:00Z "c"` into its arguments.
func quotedArgs(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			v, _ := strconv.Unquote(q)
			out = append(out, v)
			s = s[len(q):]
			continue
		}
		word, rest, _ := strings.Cut(s, " ")
		out = append(out, word)
		s = rest
	}
	return out, nil
}

func mustWrite(t testing.TB, p string, mt time.Time) {
	t.Helper()
	// Text that names the page and the mtime: a later write is a change
	// in every lastmod mode (pages.lastmod: what the page says changes,
	// and it says something no other page says, as content does).
	writeFile(t, p, "<!doctype html><title>x</title>\n<p>"+filepath.Base(p)+" written at "+mt.UTC().Format(time.RFC3339Nano)+"</p>\n", mt)
}

// writeFile writes a file, making its directory, and sets its mtime.
func writeFile(t testing.TB, p, content string, mt time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// loadConfig loads a testdata config with root (and output_dir, if set)
// pointed at the given directories.
func loadConfig(t testing.TB, file, root string, extra string) *config.Config {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte("root: "+strconv.Quote(root)+"\n"+extra), data...)
	if !bytes.Contains(data, []byte("state_dir:")) {
		// Never the default, /var/lib/sitemapd: content hashes are kept
		// there.
		data = append([]byte("state_dir: "+strconv.Quote(t.TempDir())+"\n"), data...)
	}
	cfg, err := config.Load(data, file)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newEngine returns an engine logging warnings into an observer.
func newEngine(t testing.TB, cfg *config.Config, opts ...Option) (*Engine, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.WarnLevel)
	e, err := New(cfg, zap.New(core), append([]Option{WithProgress(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, logs
}

func mustBuild(t testing.TB, e *Engine) *Report {
	t.Helper()
	rep, err := e.Build(context.Background())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return rep
}

// outputs returns every sitemapd output below dir: rel path -> bytes as on
// disk.
func outputs(t testing.TB, cfg *config.Config, dir string) map[string][]byte {
	t.Helper()
	return outputsNamed(t, dir, cfg.SitemapName, cfg.IndexName)
}

// textOutputs reads the text sitemaps under dir, and the record of them.
func textOutputs(t testing.TB, cfg *config.Config, dir string) map[string][]byte {
	t.Helper()
	out := outputsNamed(t, dir, cfg.OutputNames().Text())
	if b, err := os.ReadFile(filepath.Join(dir, textrecord.Name)); err == nil {
		out[textrecord.Name] = b
	}
	return out
}

// outputsNamed reads the files under dir that are parts of the given names.
func outputsNamed(t testing.TB, dir string, names ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && slices.ContainsFunc(names, func(n string) bool { return outname.IsPart(d.Name(), n) }) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// plain returns an output's XML, decompressing .gz files.
func plain(t testing.TB, name string, b []byte) []byte {
	if strings.HasSuffix(name, ".gz") {
		return gunzip(t, b)
	}
	return b
}

type xmlIndex struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type xmlURLSet struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc string `xml:"loc"`
	} `xml:"url"`
}

var lastmodRE = regexp.MustCompile(`<lastmod>[^<]*</lastmod>`)

// checkIndexes checks the index files structurally (sitemap.xsd does not
// cover them): namespace, limits, and that every entry names an existing
// sitemap below dir whose mtime is the entry's lastmod. It returns the
// index bytes with lastmod values masked, for golden comparison, and the
// set of sitemaps the indexes list.
func checkIndexes(t testing.TB, cfg *config.Config, dir string, outs map[string][]byte) (masked map[string][]byte, listed map[string]bool) {
	t.Helper()
	masked, listed = map[string][]byte{}, map[string]bool{}
	for name, raw := range outs {
		if !outname.IsPart(filepath.Base(name), cfg.IndexName) {
			continue
		}
		if strings.Contains(name, "/") {
			t.Errorf("index %s is not at the output root", name)
		}
		b := plain(t, name, raw)
		if len(b) > sitemap.MaxBytes {
			t.Errorf("index %s is %d bytes", name, len(b))
		}
		var idx xmlIndex
		if err := xml.Unmarshal(b, &idx); err != nil {
			t.Errorf("index %s: %v", name, err)
			continue
		}
		if n := len(idx.Sitemaps); n == 0 || n > sitemap.MaxItems {
			t.Errorf("index %s lists %d sitemaps", name, n)
		}
		for _, s := range idx.Sitemaps {
			rel, ok := strings.CutPrefix(s.Loc, cfg.BaseURL)
			if !ok {
				t.Errorf("index %s: %s is not below %s", name, s.Loc, cfg.BaseURL)
				continue
			}
			rel, err := url.PathUnescape(rel)
			if err != nil {
				t.Errorf("index %s: %s: %v", name, s.Loc, err)
				continue
			}
			listed[rel] = true
			st, err := os.Stat(filepath.Join(dir, rel))
			if err != nil {
				t.Errorf("index %s lists %s: %v", name, s.Loc, err)
				continue
			}
			if want := st.ModTime().UTC().Truncate(time.Second).Format(time.RFC3339); s.LastMod != want {
				t.Errorf("index %s: lastmod of %s = %s, want its mtime %s", name, rel, s.LastMod, want)
			}
		}
		masked[name] = lastmodRE.ReplaceAll(b, []byte("<lastmod>MTIME</lastmod>"))
	}
	return masked, listed
}

// checkLocationRule checks that every URL of a sitemap is at or below the
// sitemap's own directory (sitemaps.org "Sitemap file location").
func checkLocationRule(t testing.TB, cfg *config.Config, name string, b []byte) {
	t.Helper()
	var us xmlURLSet
	if err := xml.Unmarshal(b, &us); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	dir := filepath.ToSlash(filepath.Dir(name))
	prefix := cfg.BaseURL
	if dir != "." {
		prefix = siteurl.New(cfg).File(dir) + "/"
	}
	if len(us.URLs) == 0 || len(us.URLs) > sitemap.MaxItems {
		t.Errorf("%s holds %d URLs", name, len(us.URLs))
	}
	for _, u := range us.URLs {
		if !strings.HasPrefix(u.Loc, prefix) {
			t.Errorf("%s lists %s, outside %s", name, u.Loc, prefix)
		}
		if len(u.Loc) > sitemap.MaxLocLen {
			t.Errorf("%s lists a URL of %d characters", name, len(u.Loc))
		}
	}
}

// warnings renders the observed warnings one per line, sorted, with the
// temporary directory replaced by ROOT.
func warnings(logs *observer.ObservedLogs, root string) string {
	var lines []string
	for _, e := range logs.All() {
		line := e.Message
		for _, k := range []string{"path", "target"} {
			if v, ok := e.ContextMap()[k].(string); ok {
				line += fmt.Sprintf(" %s=%q", k, strings.ReplaceAll(v, filepath.Dir(root), "TMP"))
			}
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// between returns what s holds between the first open and the next close.
func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	v, _, ok := strings.Cut(rest, close)
	return v, ok
}

// opens is the kernel's account (inotify's IN_OPEN) of which of some files
// were opened: whether a build read a page's bytes, told from outside
// sitemapd.
type opens struct {
	fd    int
	paths map[int]string // by watch descriptor
}

func watchOpens(t testing.TB, paths ...string) *opens {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	o := &opens{fd: fd, paths: map[int]string{}}
	for _, p := range paths {
		wd, err := unix.InotifyAddWatch(fd, p, unix.IN_OPEN)
		if err != nil {
			t.Fatalf("watch %s: %v", p, err)
		}
		o.paths[wd] = p
	}
	return o
}

// take returns the files opened since the last take (each once, sorted).
func (o *opens) take(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(o.fd, buf)
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&unix.IN_OPEN != 0 {
				seen[o.paths[int(ev.Wd)]] = true
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
