package significant

import (
	"strings"
	"testing"
	"time"
)

// TestPathological: inputs that make a naive reader quadratic read in
// linear time.
func TestPathological(t *testing.T) {
	for name, src := range map[string]string{
		"nested inline":      strings.Repeat("<b>", 20000) + strings.Repeat("</i>", 20000),
		"nested blocks":      strings.Repeat("<div>", 20000) + strings.Repeat("<li>", 20000),
		"nested links":       strings.Repeat("<a href=x><span>", 10000),
		"comments":           strings.Repeat("<!--", 20000),
		"references":         strings.Repeat("&#x", 20000) + strings.Repeat("&amp", 20000),
		"raw text":           strings.Repeat("<script></scrip", 10000),
		"unclosed attribute": "<a href=\"" + strings.Repeat("x", 200000),
		"nested tables":      strings.Repeat("<table><tr><td>", 10000),
	} {
		start := time.Now()
		p, err := Read([]byte(src), Options{URL: "/a.html"})
		if err != nil {
			t.Fatal(err)
		}
		(*Model)(nil).Print(p)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %s", name, d)
		}
	}
}
