package urlfile

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func testConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load([]byte("root: "+t.TempDir()+"\nbase_url: https://static.test/\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// render shows what Read returns, one entry or warning a line.
func render(entries []Entry, warns []Warning) string {
	var b strings.Builder
	b.WriteString("entries:\n")
	for _, e := range entries {
		ts := "-"
		if !e.Time.IsZero() {
			ts = e.Time.Format(time.RFC3339Nano)
		}
		fmt.Fprintf(&b, "%s\t%s\n", e.Loc, ts)
	}
	b.WriteString("warnings:\n")
	for _, w := range warns {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

// TestGolden reads each testdata/*.urls and compares entries and warnings
// with its .golden file (go test -update rewrites them; review the diff).
func TestGolden(t *testing.T) {
	cfg := testConfig(t)
	files, _ := filepath.Glob("testdata/*.urls")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			entries, warns, err := Read(bytes.NewReader(data), filepath.Base(f), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := render(entries, warns)
			golden := strings.TrimSuffix(f, ".urls") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestLongLine: a line past MaxLine is refused, and the lines around it
// are read, however the reader's buffer cuts it.
func TestLongLine(t *testing.T) {
	cfg := testConfig(t)
	in := "https://static.test/a\n" + "https://static.test/" + strings.Repeat("x", 3*MaxLine) + "\nhttps://static.test/b"
	entries, warns, err := Read(strings.NewReader(in), "f", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Loc != "https://static.test/a" || entries[1].Loc != "https://static.test/b" {
		t.Errorf("entries %v", entries)
	}
	if len(warns) != 1 || warns[0].Line != 2 {
		t.Errorf("warnings %v, want one for line 2", warns)
	}
}

// TestDatesAsTheProtocolReadsThem: a date with a zone is that instant, as
// the standard library reads RFC 3339 (the dates written are checked
// against sitemap.xsd in internal/build).
func TestDatesAsTheProtocolReadsThem(t *testing.T) {
	cfg := testConfig(t)
	for _, d := range []string{"2024-05-01T10:30:00+02:00", "2024-05-01T10:30:00.5Z", "2024-05-01T23:59:59-11:00"} {
		entries, warns, err := Read(strings.NewReader("https://static.test/p\t"+d), "f", cfg)
		if err != nil || len(warns) != 0 || len(entries) != 1 {
			t.Fatalf("%s: %v %v %v", d, entries, warns, err)
		}
		want, _ := time.Parse(time.RFC3339Nano, d)
		if !entries[0].Time.Equal(want) {
			t.Errorf("%s read as %v, want %v", d, entries[0].Time, want)
		}
	}
}
