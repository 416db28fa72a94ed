package significant

import (
	"fmt"
	"strings"
	"testing"
)

// pathological are inputs that make a naive reader quadratic, at scale n
// (their size grows linearly with it).
func pathological(n int) map[string]string {
	return map[string]string{
		"nested inline":      strings.Repeat("<b>", 2*n) + strings.Repeat("</i>", 2*n),
		"nested blocks":      strings.Repeat("<div>", 2*n) + strings.Repeat("<li>", 2*n),
		"nested links":       strings.Repeat("<a href=x><span>", n),
		"comments":           strings.Repeat("<!--", 2*n),
		"references":         strings.Repeat("&#x", 2*n) + strings.Repeat("&amp", 2*n),
		"raw text":           strings.Repeat("<script></scrip", n),
		"unclosed attribute": "<a href=\"" + strings.Repeat("x", 20*n),
		"nested tables":      strings.Repeat("<table><tr><td>", n),
	}
}

// TestPathological: inputs that make a naive reader quadratic are read
// and printed without error. (That they read in linear time is
// BenchmarkPathological's to show: ns/op at n and 2n; no test here
// asserts a time, which a busy machine would break.)
func TestPathological(t *testing.T) {
	for name, src := range pathological(10000) {
		p, err := Read([]byte(src), Options{URL: "/a.html"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		(*Model)(nil).Print(p)
	}
}

// BenchmarkPathological reads each pathological input at two scales:
// linear reading shows ns/op doubling from n=5000 to n=10000, a quadratic
// one quadrupling.
//
//	go test -run '^$' -bench Pathological ./internal/significant
func BenchmarkPathological(b *testing.B) {
	for _, n := range []int{5000, 10000} {
		for name, src := range pathological(n) {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				for b.Loop() {
					p, _ := Read([]byte(src), Options{URL: "/a.html"})
					(*Model)(nil).Print(p)
				}
			})
		}
	}
}
