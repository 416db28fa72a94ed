package head

import (
	"slices"
	"testing"
)

// TestSrcsetWPT holds Srcset to the web-platform-tests' cases for the
// standard's srcset parser
// (html/semantics/embedded-content/the-img-element/srcset/parse-a-srcset-attribute.html):
// each gives the image a browser picks, which with these candidates (one
// density each) is the first kept, or none. Character references are
// written decoded.
func TestSrcsetWPT(t *testing.T) {
	for _, tc := range []struct{ srcset, want string }{
		// splitting loop
		{"", ""},
		{",", ""},
		{",,,", ""},
		{"  data:,a  1x  ", "data:,a"},
		{"\t\tdata:,a\t\t1x\t\t", "data:,a"},
		{"\n\ndata:,a\n\n1x\n\n", "data:,a"},
		{"\v\vdata:,a\v\v1x\v\v", "\v\vdata:,a\v\v1x\v\v"},
		{"\f\fdata:,a\f\f1x\f\f", "data:,a"},
		{"\r\rdata:,a\r\r1x\r\r", "data:,a"},
		{"\x0e\x0edata:,a\x0e\x0e1x\x0e\x0e", "\x0e\x0edata:,a\x0e\x0e1x\x0e\x0e"},
		{"\x10\x10data:,a\x10\x101x\x10\x10", "\x10\x10data:,a\x10\x101x\x10\x10"},
		{"data:,a", "data:,a"},
		{"data:,a ", "data:,a"},
		{"data:,a ,", "data:,a"},
		{"data:,a,", "data:,a"},
		{"data:,a, ", "data:,a"},
		{"data:,a,,,", "data:,a"},
		{"data:,a,, , ", "data:,a"},
		{" data:,a", "data:,a"},
		{",,,data:,a", "data:,a"},
		{" , ,,data:,a", "data:,a"},
		{"\u00a0data:,a", "\u00a0data:,a"},
		{"data:,a\u00a0", "data:,a\u00a0"},
		// descriptor tokenizer
		{"data:,a 1x", "data:,a"},
		{"data:,a 1x ", "data:,a"},
		{"data:,a 1x,", "data:,a"},
		{"data:,a 1x 1x ( , data:,b 1x, ), data:,c", "data:,c"},
		{"data:,a 1x 1x ((( , data:,b 1x, ), data:,c", "data:,c"},
		{"data:,a 1x 1x [ , data:,b 1x, ], data:,c", "data:,b"},
		{"data:,a 1x 1x { , data:,b 1x, }, data:,c", "data:,b"},
		{"data:,a 1x 1x \" , data:,b 1x, \", data:,c", "data:,b"},
		{"data:,a 1x 1x \\,data:;\\,b, data:,c", "data:;\\,b"},
		{"data:,a, data:,b (", "data:,a"},
		{"data:,a, data:,b (  ", "data:,a"},
		{"data:,a, data:,b (,", "data:,a"},
		{"data:,a, data:,b (x", "data:,a"},
		{"data:,a, data:,b ()", "data:,a"},
		{"data:,a 1x 1x (, data:,b", ""},
		{"data:,a 1x 1x /*, data:,b, data:,c */", "data:,b"},
		{"data:,a 1x 1x //, data:,b", "data:,b"},
		// descriptor parser
		{"data:,a foo", "data:,a"},
		{"data:,a foo foo", "data:,a"},
		{"data:,a foo 1x", "data:,a"},
		{"data:,a foo 1x foo", "data:,a"},
		{"data:,a foo 1w", "data:,a"},
		{"data:,a foo 1w foo", "data:,a"},
		{"data:,a 1w 1w", ""},
		{"data:,a 1w 1x", ""},
		{"data:,a 1x 1w", ""},
		{"data:,a 1w 1h", "data:,a"},
		{"data:,a 1h 1w", "data:,a"},
		{"data:,a 1h 1h", ""},
		{"data:,a 1h 1x", ""},
		{"data:,a 1h 1w 1x", ""},
		{"data:,a 1x 1w 1h", ""},
		{"data:,a 1h", ""},
		{"data:,a 1h foo", ""},
		{"data:,a foo 1h", ""},
		{"data:,a 0w", ""},
		{"data:,a -1w", "data:,a"},
		{"data:,a 1w -1w", "data:,a"},
		{"data:,a 1.0w", "data:,a"},
		{"data:,a 1w 1.0w", "data:,a"},
		{"data:,a 1e0w", "data:,a"},
		{"data:,a 1w 1e0w", "data:,a"},
		{"data:,a 1www", "data:,a"},
		{"data:,a 1w 1www", "data:,a"},
		{"data:,a +1w", "data:,a"},
		{"data:,a 1w +1w", "data:,a"},
		{"data:,a 1W", "data:,a"},
		{"data:,a 1w 1W", "data:,a"},
		{"data:,a Infinityw", "data:,a"},
		{"data:,a 1w Infinityw", "data:,a"},
		{"data:,a NaNw", "data:,a"},
		{"data:,a 1w NaNw", "data:,a"},
		// Left out: "data:,a 1&#x1;w", which the tests expect to drop
		// the candidate though "1\x01w" is no valid descriptor and
		// "1\x01x" and "1\x01h" are ignored; no rule of the standard
		// tells it apart.
		{"data:,a 0x", "data:,a"},
		{"data:,a -0x", "data:,a"},
		{"data:,a 1x -0x", ""},
		{"data:,a -1x", "data:,a"},
		{"data:,a 1x -1x", "data:,a"},
		{"data:,a 1e0x", "data:,a"},
		{"data:,a 1E0x", "data:,a"},
		{"data:,a 1e-1x", "data:,a"},
		{"data:,a 1.5e1x", "data:,a"},
		{"data:,a 1x 1.5e1x", ""},
		{"data:,a 1x 1e1.5x", "data:,a"},
		{"data:,a 1.0x", "data:,a"},
		{"data:,a 1x 1.0x", ""},
		{"data:,a 1x +1x", "data:,a"},
		{"data:,a 1x 1X", "data:,a"},
		{"data:,a 1x Infinityx", "data:,a"},
		{"data:,a 1x NaNx", "data:,a"},
		{"data:,a 1x 1\x01x", "data:,a"},
		{"data:,a 1w 0h", ""},
		{"data:,a 1w 1h -1h", "data:,a"},
		{"data:,a 1w 1h 1.0h", "data:,a"},
		{"data:,a 1w 1h 1e0h", "data:,a"},
		{"data:,a 1w 1h 1hhh", "data:,a"},
		{"data:,a 1w 1h +1h", "data:,a"},
		{"data:,a 1w 1h 1H", "data:,a"},
		{"data:,a 1w 1h Infinityh", "data:,a"},
		{"data:,a 1w 1h NaNh", "data:,a"},
		{"data:,a 1w 1h 1\x01h", "data:,a"},
	} {
		got := Srcset(tc.srcset)
		first := ""
		if len(got) > 0 {
			first = got[0]
		}
		if first != tc.want {
			t.Errorf("Srcset(%q) = %q: picks %q, the tests want %q", tc.srcset, got, first, tc.want)
		}
	}
}

// TestSrcsetCandidates: every candidate is listed, not only the one a
// browser picks, with commas inside URLs kept.
func TestSrcsetCandidates(t *testing.T) {
	for _, tc := range []struct {
		srcset string
		want   []string
	}{
		{"a.jpg 1x, b.jpg 2x", []string{"a.jpg", "b.jpg"}},
		{"a.jpg 480w,b.jpg 800w", []string{"a.jpg", "b.jpg"}},
		{"a,b.jpg 1x, c.jpg", []string{"a,b.jpg", "c.jpg"}},
		{"a.jpg,b.jpg", []string{"a.jpg,b.jpg"}},
		{"a.jpg, b.jpg 1x 2x, c.jpg 3x", []string{"a.jpg", "c.jpg"}},
		{"a.jpg (min-width: 10px) 1x, b.jpg", []string{"a.jpg", "b.jpg"}},
	} {
		if got := Srcset(tc.srcset); !slices.Equal(got, tc.want) {
			t.Errorf("Srcset(%q) = %q, want %q", tc.srcset, got, tc.want)
		}
	}
}
