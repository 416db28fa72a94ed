package head

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// The fast path (fast.go) must make the decisions of readTokenized, the
// tokenizer-based reader, on every page: these tests and
// FuzzFastMatchesTokenizer compare the two.

// agree checks that Read and ReadBytes give what readTokenized gives for
// src, read whole and in pieces of n bytes.
func agree(t *testing.T, name string, src []byte, n int) {
	t.Helper()
	want, werr := readTokenized(bytes.NewReader(src), page)
	check := func(how string, got Info, err error) {
		t.Helper()
		if (err == nil) != (werr == nil) || format(got) != format(want) {
			t.Errorf("%s: %s (%v):\n%s\nthe tokenizer (%v):\n%s\npage: %.300q", name, how, err, format(got), werr, format(want), src)
		}
	}
	got, err := ReadBytes(src, page)
	check("ReadBytes", got, err)
	got, err = Read(bytes.NewReader(src), page)
	check("Read", got, err)
	got, err = Read(&chunkReader{r: bytes.NewReader(src), n: n}, page)
	check("Read in pieces of "+strconv.Itoa(n), got, err)
	// The fast path run on the first n bytes, then on more: a head read
	// again from the token the bytes ended in, wherever that is.
	f := newFast()
	defer f.free()
	got, err = f.read(bytes.NewReader(src), page, make([]byte, 0, n))
	check("Read, scanned after "+strconv.Itoa(n)+" bytes", got, err)
}

// goldenPages are the pages of testdata and of internal/build's golden
// trees (the pages of their tree.txt), by name.
func goldenPages(t testing.TB) map[string][]byte {
	pages := map[string][]byte{"long-head": styledHead(200 << 10), "too-long-head": styledHead(Limit)}
	files, _ := filepath.Glob("testdata/*.html")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[p] = b
	}
	trees, _ := filepath.Glob("../build/testdata/golden/*/tree.txt")
	if len(files) == 0 || len(trees) == 0 {
		t.Fatal("no golden pages")
	}
	for _, tree := range trees {
		for name, b := range treePages(t, tree) {
			pages[tree+":"+name] = b
		}
	}
	return pages
}

// treePages reads the pages of a golden tree's manifest: `c "path"
// "content"` and `r "path" "before" "filler" "count" "after"` lines.
func treePages(t testing.TB, manifest string) map[string][]byte {
	f, err := os.Open(manifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pages := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		var args []string
		for rest = strings.TrimSpace(rest); strings.HasPrefix(rest, `"`); rest = strings.TrimSpace(rest) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("%s: %v", manifest, err)
			}
			v, _ := strconv.Unquote(q)
			args, rest = append(args, v), rest[len(q):]
		}
		switch {
		case kind == "c" && len(args) >= 2:
			pages[args[0]] = []byte(args[1])
		case kind == "r" && len(args) == 5:
			n, err := strconv.Atoi(args[3])
			if err != nil {
				t.Fatalf("%s: %v", manifest, err)
			}
			pages[args[0]] = []byte(args[1] + strings.Repeat(args[2], n) + args[4])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestFastGolden: every golden page gives the same Info both ways.
func TestFastGolden(t *testing.T) {
	pages := goldenPages(t)
	if len(pages) < 60 {
		t.Fatalf("%d golden pages", len(pages))
	}
	for name, src := range pages {
		agree(t, name, src, 1+len(src)%1021)
	}
}

// TestFastLimit reads heads that end, or do not, around Limit: cut within
// a tag, a comment, raw text, at the end of a tag, one byte either side.
func TestFastLimit(t *testing.T) {
	tails := []string{
		`<meta name=robots content=noindex>`, `<meta name=robots content=noindex></head>`, `</head>`, `<body>`, `x`,
		`<link rel=canonical href=/a>`, `<!-- c -->`, `<!-- c`, `<title>t</title>`, `<title>t</ti`, `<script>x</script>`,
		`<meta name="robots" content="noindex`, `</`, `<`, `<!`, `<!-`, `<!DOC`, ` `, "\n", `<noscript><meta http-equiv=refresh content="0;url=/a">`,
		`<script type=application/ld+json>{"dateModified":"2024-01-01"}</script>`, `<template>x`, `<?xml`,
	}
	for _, tail := range tails {
		for _, d := range []int{-1, 0, 1, len(tail) / 2} {
			prefix := `<!doctype html><head><meta name=robots content=nofollow><style>`
			n := Limit - d - len(tail) - len(prefix) - len(`</style>`)
			src := []byte(prefix + strings.Repeat("p{}\n", n/4+1)[:n] + `</style>` + tail)
			agree(t, strconv.Quote(tail)+" "+strconv.Itoa(d), src, 64<<10)
		}
	}
}

// TestFastErrors: a reader's error is the tokenizer's to report, or not,
// wherever it comes.
func TestFastErrors(t *testing.T) {
	src := []byte(`<!doctype html><head><meta name=robots content=noindex><title>t</title><link rel=canonical href=/c></head><body>x`)
	for i := range len(src) + 1 {
		r := func() io.Reader {
			return io.MultiReader(iotest.HalfReader(bytes.NewReader(src[:i])), iotest.ErrReader(io.ErrUnexpectedEOF))
		}
		want, werr := readTokenized(r(), page)
		got, err := Read(r(), page)
		if err != werr || format(got) != format(want) {
			t.Errorf("error after %d bytes: %v\n%s\nthe tokenizer: %v\n%s", i, err, format(got), werr, format(want))
		}
	}
}

// TestFastCorpus compares the two readers on every .html file under
// $HEAD_CORPUS (a documentation tree, a generated site), and says how many
// pages and bytes that was.
func TestFastCorpus(t *testing.T) {
	root := os.Getenv("HEAD_CORPUS")
	if root == "" {
		t.Skip("HEAD_CORPUS not set")
	}
	var pages, bytesRead int
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages++
		bytesRead += len(src)
		agree(t, p, src, 4096)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages (%d MB)", pages, bytesRead>>20)
}

// adversarial are heads written to trip a scanner that is not the
// tokenizer: markup where it is not, quoting, case, references, line
// ends, raw text and its escapes, constructs cut by the end of the input.
var adversarial = []string{
	`<!-- <meta name=robots content=noindex> --><title>t</title>`,
	`<!--><meta name=robots content=noindex>`, `<!---><meta name=robots content=noindex>`,
	`<!-- a -- > <meta name=robots content=noindex> --!><meta name=robots content=noindex>`,
	`<!-- a --!-><meta name=robots content=noindex> --><link rel=canonical href=/c>`,
	`<!-- never closed <meta name=robots content=noindex>`, `<!-`, `<!`, `<!--`, `<!-->`,
	`<script>document.write('<meta name=robots content=noindex>')</script><link rel=canonical href=/c>`,
	`<style>p{}</style ><meta name=robots content=noindex></style><meta name=robots content=noindex>`,
	`<title><meta name=robots content=noindex></title><link rel=canonical href=/c>`,
	`<textarea><meta name=robots content=noindex></textarea>`,
	`<script><!--<script>x</script>--></script><meta name=robots content=noindex>`,
	`<script><!-- </script><meta name=robots content=noindex>`,
	`<script><!--<script>--></script><meta name=robots content=noindex></script><link rel=canonical href=/c>`,
	`<script><!--<SCRIPT/></Script ><meta name=robots content=noindex>--></script><link rel=canonical href=/c>`,
	`<script><!--<scripty>--!></script><meta name=robots content=noindex>`,
	`<script></scrip></script/x><meta name=robots content=noindex>`,
	`<meta name=robots content=noindex/><link rel=canonical href=/c/>`,
	`<meta name = robots content = "noindex" ><meta/name=robots/content=noindex>`,
	`<meta name=robots name=other content=noindex content=index>`,
	`<meta NAME=ROBOTS Content="NoIndex"><LINK REL=Canonical HREF="/C">`,
	`<meta name=robots content="&noindex"><meta name="robots" content="&#x6e;oindex">`,
	`<meta name="robots" content="no&#105;ndex"><link rel="alternate" hreflang="de" href="/a?x=1&amp;y=2&#x27;">`,
	`<meta name=robots content=&amp;noindex=x><meta name="r&#111;bots" content="none">`,
	"<meta name=robots\r\ncontent=\"\r\nnoindex\">\r\n<link rel=\"canonical\"\rhref=\"/c\r\nd\">",
	"\uFEFF<meta name=robots content=noindex>", "\uFEFF\uFEFF<meta name=robots content=noindex>", " \uFEFF<title>",
	`<noscript><meta http-equiv="refresh" content="0; url=/moved"></noscript>`,
	`<noscript/><meta http-equiv="refresh" content="0; url=/moved"></noscript>`,
	`<template><noscript><meta http-equiv=refresh content="0;url=/a"></noscript></template><meta http-equiv=refresh content="0;url=/b">`,
	`<!DOCTYPE html><!doctype><!DocType x "y>z"><!DOCTYPEhtml><meta name=robots content=noindex>`,
	`<?xml version="1.0"?><?php echo "<meta>" ?><meta name=robots content=noindex>`,
	`<![CDATA[<meta name=robots content=noindex>]]><link rel=canonical href=/c>`,
	`</><meta name=robots content=noindex></ x><meta name=googlebot content=none></3 a>`,
	`<meta name=robots content="noindex"`, `<meta name=robots content='noindex`, `<meta name=robots content=noindex`, `<meta`,
	`<meta name="robots" content="noindex>"><link rel=canonical href='/a>b'>`,
	`<a =b><meta name=robots content=noindex>`, `<meta =name=robots content=noindex>`,
	"<meta name=robots content=noindex\x00><meta na\x00me=robots content=noindex><meta name=rob\x00ots content=noindex>",
	"<title>\x00</title><met\x00a name=robots content=noindex>",
	`<style/>p{}</style><meta name=robots content=noindex>`, `<title/> </title><meta name=robots content=noindex>`,
	`<script type="application/ld+json"/>{"dateModified":"2024-01-01"}</script>`,
	`<script type=application/ld+json/>{"dateModified":"2024-01-01"}</script>`,
	`<script TYPE=" Application/LD+JSON ;x" type=text/plain>{"dateModified":"2024-01-01"}</script>`,
	`<script type="application&#47;ld+json">{"dateModified":"2024-01-01"}</script>`,
	`<template><template></template><meta name=robots content=noindex></template><meta name=robots content=none>`,
	`<template/><meta name=robots content=noindex></template></head><meta name=googlebot content=noindex>`,
	`</template></template><body><meta name=robots content=noindex>`,
	`<plaintext><meta name=robots content=noindex>`, `<template><plaintext></template><meta name=robots content=noindex>`,
	`<template><body><p>text</p></template><meta name=robots content=noindex>`,
	`<head a=">"><meta name=robots content=noindex></head b=">"><meta name=googlebot content=noindex>`,
	`<base href=/x/><base href=/y/><link rel=canonical href=c>`,
	`<meta http-equiv=Refresh content="0;URL='/a'"><meta http-equiv=refresh content="0;url=/b">`,
	`<meta property="og:updated_time" name="robots" content="2024-01-01"><meta property=article:modified_time content=" 2024-02-02 ">`,
	`<link rel="canonical&#x20;x" href=/a><link rel="ALTERNATE" hreflang=de href=/de><link rel="alternate\vcanonical" href=/v>`,
	"<link rel=\"alternate\u00a0canonical\" href=/nbsp hreflang=en><link rel=\"CANONİCAL\" href=/dot>",
	`<meta name=robotſ content=noindex><meta name=ROBOTS content=NOİNDEX>`,
	`<title>t</title>x<meta name=robots content=noindex>`, `<title>t</title> < <meta name=robots content=noindex>`,
	`<title>t</title><`, `<title>t</title></`, "<title>t</title> \n\t\f\r", `<title>t</title><p>`,
	`<html><head><meta name=robots content=noindex></head><body>`,
	`<meta name=robots content=noindex><iframe></iframe><meta name=googlebot content=noindex>`,
	`<noframes><meta name=robots content=noindex></noframes><xmp></xmp>`,
}

// FuzzFastMatchesTokenizer: on any bytes, Read and ReadBytes make
// readTokenized's decisions, however the bytes come.
func FuzzFastMatchesTokenizer(f *testing.F) {
	for name, src := range goldenPages(f) {
		if len(src) < 64<<10 || strings.HasPrefix(name, "testdata") {
			f.Add(src)
		}
	}
	for _, tc := range modifiedCases {
		f.Add([]byte(tc.page))
	}
	for _, tc := range articleCases {
		f.Add([]byte(tc.page))
	}
	for _, s := range adversarial {
		f.Add([]byte(s))
		f.Add([]byte(inHeadPage(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		agree(t, "", src, 1+len(src)%13)
	})
}

// hreflangRE is ValidHreflang's grammar as the regular expression it was.
var hreflangRE = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

func FuzzValidHreflang(f *testing.F) {
	for _, s := range []string{"en", "en-US", "x-default", "X-Default", "zh-Hant-TW", "de-1996", "1996", "en_US", "en-", "-en",
		"abcdefghi", "a-abcdefgh", "a-abcdefghi", "", "en--us", "e\u0301n", "en-us\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidHreflang(s), hreflangRE.MatchString(s) || strings.EqualFold(s, "x-default"); got != want {
			t.Errorf("ValidHreflang(%q) = %v, want %v", s, got, want)
		}
	})
}
