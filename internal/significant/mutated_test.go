package significant

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestPrintsStableMutated holds Read, Print and ReadPrint to what the
// reader made before it was made faster again (1773c4b), on some 6,000
// pages it has no golden line for: the real pages of TestPrintsStable,
// cut and mutated (markup snippets inserted, spans deleted, upper-cased
// or copied elsewhere), as a fuzzer would, but the same ones every run.
// testdata/prints-mutated.golden holds a digest of every 100 pages' whole
// Pages and Prints, under no model and a model, as that reader made
// them; a line that differs names the pages to look at (mutatedPages).
// Rewrite it (-update) only with a page store version bump.
//
// The model is the one a page store keeps: stored (testdata/model-v1.hex,
// the model the learner of 1773c4b learnt from the real pages, in the
// stored form of version 1), not learnt in the test, so that what the
// golden holds is what a store's prints depend on: the reader, and how a
// stored model judges a page. A better learner makes other models, for
// new stores; it must not move the prints of a store that keeps its own.
func TestPrintsStableMutated(t *testing.T) {
	srcs, keys := stableSources(t)
	main, _ := ParseSelector("article")
	ignore, _ := ParseSelectors([]string{".sidebar", "nav"})
	optSets := []Options{{URL: "https://docs.example/dir/page.html"}, {URL: "/dir/", Main: main, Ignore: ignore}}
	model := storedModel(t, "model-v1.hex")
	var none *Model
	inputs := mutatedPages(srcs, keys)
	var out bytes.Buffer
	d := xxhash.New()
	for i, in := range inputs {
		for _, o := range optSets {
			p, err := Read(in, o)
			if err != nil {
				t.Fatal(err)
			}
			pr0, _ := ReadPrint(in, o, none)
			pr1, _ := ReadPrint(in, o, model)
			fmt.Fprintf(d, "%016x %x %x %x %x\n", pageDigest(p), none.Print(p).Bytes(), model.Print(p).Bytes(), pr0.Bytes(), pr1.Bytes())
		}
		if i%100 == 99 || i == len(inputs)-1 {
			fmt.Fprintf(&out, "pages %d-%d %016x\n", i-i%100, i, d.Sum64())
			d.Reset()
		}
	}
	checkGolden(t, "prints-mutated.golden", out.String())
}

// storedModel reads a model in its stored form, hex encoded, from
// testdata.
func storedModel(t *testing.T, name string) *Model {
	t.Helper()
	h, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(h)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m := new(Model)
	if err := m.UnmarshalBinary(b); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// mutatedPages are TestPrintsStableMutated's pages: each real page as it
// is, then 6,000 cut and mutated ones, from a fixed seed.
func mutatedPages(srcs map[string][]byte, keys []string) [][]byte {
	var inputs [][]byte
	for _, k := range keys {
		inputs = append(inputs, srcs[k])
	}
	r := rand.New(rand.NewPCG(22, 1773))
	base := len(inputs)
	for range 6000 {
		src := inputs[r.IntN(base)]
		if r.IntN(3) == 0 && len(src) > 600 {
			a := r.IntN(len(src) - 500)
			src = src[a : a+r.IntN(500)]
		}
		inputs = append(inputs, mutate(r, src))
	}
	return inputs
}

// snippets are what mutate inserts: the markup whose reading has rules
// of its own (implied ends, raw text, skipped subtrees, landmarks,
// references, white space, links, images, microdata, JSON-LD, broken
// tags and comments).
var snippets = []string{"<p>", "</p>", "<li>", "</li>", "<div class='a b active'>", "</div>", "&amp;", "&nbsp;", "&eacute", "&#160;", "&#x41;", "\u00a0", "  ", "\t", "\n\n",
	"<a href='x'>", "<a href=\"../y.html#f\">", "</a>", "<!--", "-->", "<script>", "</script>", "<script type=application/ld+json>{\"a\":1}</script>", "<svg>", "</svg>", "<br/>", "<img src=x alt='y'>",
	"<img data-src=z.png src=''>", "<title>", "</title>", "'", "\"", "=", ">", "<", "</", "<P CLASS=x>", "\x00", "\xc2", "\xa0", "&#", "&#x", "<table>", "<td>", "<tr>", "<th>", "</table>",
	" itemprop=x content=y", "<meta itemprop=a content=b>", "<time itemprop=d datetime=2020>", "<main>", "</main>", "<nav>", "</nav>", " hidden ", " aria-hidden=true ", "<base href=/x/>", "<template>",
	"<plaintext>", "<dt>", "<dd>", "<option>", "<select>", "<h2 id=q>", "</h2>", "<header>", "<footer role=contentinfo>", "<article>", "<section class='s-1 current'>", "<button>",
	"<caption>", "<math>", "<style>", "</style>", "<textarea>", "<noscript>", "<head>", "</head>", "<body>", "<html>", "<DIV ID=Main Role=MAIN>", "<aside>", "<span>", "</span>", "<em>", "<hr>",
	"<ul>", "</ul>", "<ol>", "<blockquote>", "<pre>  x  </pre>", "<custom-element class=k>", "<a href=javascript:void(0)>", "<a href=#>", "<a href=https://docs.example/dir/q?x#y>",
	"<input value=x>", "<p/>", "<div/>", "<svg/>", "</br>", "</body>", "</html>", "<?x>", "<!DOCTYPE html>", "<!-->", "<!--->", "--!>", "<a\thref=x\n>", "<a href = 'x' href=y>"}

// mutate makes one to eight edits to a copy of src.
func mutate(r *rand.Rand, src []byte) []byte {
	b := append([]byte(nil), src...)
	for n := 1 + r.IntN(8); n > 0; n-- {
		if len(b) == 0 {
			b = append(b, snippets[r.IntN(len(snippets))]...)
			continue
		}
		i := r.IntN(len(b) + 1)
		switch r.IntN(6) {
		case 0, 1, 2:
			s := snippets[r.IntN(len(snippets))]
			b = append(b[:i], append([]byte(s), b[i:]...)...)
		case 3:
			j := min(len(b), i+r.IntN(64))
			b = append(b[:i], b[j:]...)
		case 4:
			j := min(len(b), i+r.IntN(32))
			copy(b[i:j], bytes.ToUpper(b[i:j]))
		case 5:
			j := min(len(b), i+r.IntN(128))
			k := r.IntN(len(b) + 1)
			seg := append([]byte(nil), b[i:j]...)
			b = append(b[:k], append(seg, b[k:]...)...)
		}
	}
	return b
}
