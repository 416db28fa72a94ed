package scan

import (
	"testing"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/significant"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestJudge: the time a page read again keeps or takes, by what its
// bytes and its print say against what was known of it.
func TestJudge(t *testing.T) {
	said := significant.Print{Title: 1, Text: 2, Links: 3, Images: 4, Data: 5}
	newText := said
	newText.Text = 99
	short := func(pr significant.Print) (uint64, uint64) { return tree.ShortPrint(printSum(pr), packParts(pr)) }
	sp, _ := short(said)
	np, _ := short(newText)
	known := tree.Page{Name: "a.html", Time: 100, Sum: 7}
	known.Print, known.Parts = short(said)
	// otherPart is known but for one part's short hash: the 24 bits of
	// the print's sum kept are the same (one change in 2^24 has it so).
	otherPart := known
	otherPart.Parts ^= 1 << 12
	noPrint := tree.Page{Name: "a.html", Time: 100, Sum: 7} // from an older store
	const mtime = 500
	for _, c := range []struct {
		name      string
		k         tree.Page
		wasKnown  bool
		sum       uint64
		pr        significant.Print
		printed   bool
		wantTime  int64
		wantPrint uint64
		moved     bool
		judged    int
		verdict   Verdict
	}{
		{"same bytes", known, true, 7, significant.Print{}, false, 100, known.Print, false, 0, 0},
		{"same bytes, first print (upgrade)", noPrint, true, 7, said, true, 100, sp, false, 0, 0},
		{"other bytes, same print (template)", known, true, 8, said, true, 100, sp, false, 1, Kept},
		{"other bytes, other text", known, true, 8, newText, true, mtime, np, true, 1, Moved},
		{"other bytes, a part's short hash other", otherPart, true, 8, said, true, mtime, sp, true, 1, Moved},
		{"other bytes, no print known", noPrint, true, 8, said, true, mtime, sp, false, 1, MovedBytes},
		{"other bytes, not printed (too large, not HTML)", known, true, 8, significant.Print{}, false, mtime, 0, false, 1, MovedBytes},
		{"new page", tree.Page{}, false, 8, said, true, mtime, sp, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Judgement
			w := &Walk{log: zap.NewNop(), o: WalkOptions{Judged: func(j Judgement) { got = append(got, j) }}}
			p := tree.Page{Name: "a.html", Time: mtime}
			w.judge("a.html", &p, c.k, c.wasKnown, c.sum, c.pr, c.printed)
			if p.Time != c.wantTime || p.Print != c.wantPrint || p.Sum != c.sum {
				t.Errorf("time %d, print %x, sum %d; want %d, %x, %d", p.Time, p.Print, p.Sum, c.wantTime, c.wantPrint, c.sum)
			}
			if moved := len(got) == 1 && got[0].Verdict == Moved; moved != c.moved {
				t.Errorf("judged moved by what it says: %v, want %v", moved, c.moved)
			}
			if len(got) != c.judged {
				t.Errorf("judged %v, want %d judgement", got, c.judged)
			} else if c.judged == 1 && got[0].Verdict != c.verdict {
				t.Errorf("verdict %v, want %v", got[0].Verdict, c.verdict)
			}
		})
	}
}

// TestChangedParts: the packed parts tell which part of a print changed.
func TestChangedParts(t *testing.T) {
	a := significant.Print{Title: 1, Text: 2, Links: 3, Images: 4, Data: 5}
	for _, c := range []struct {
		edit func(*significant.Print)
		want significant.Parts
	}{
		{func(*significant.Print) {}, 0},
		{func(p *significant.Print) { p.Title = 77 }, significant.Title},
		{func(p *significant.Print) { p.Text, p.Data = 77, 78 }, significant.Text | significant.Data},
		{func(p *significant.Print) { p.Links, p.Images = 77, 78 }, significant.Links | significant.Images},
	} {
		b := a
		c.edit(&b)
		if got := ChangedParts(packParts(a), packParts(b)); got != c.want {
			t.Errorf("%+v → %+v: %v, want %v", a, b, got, c.want)
		}
	}
}
