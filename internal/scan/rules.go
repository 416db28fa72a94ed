package scan

import (
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
)

// rule is a compiled config.Rule.
type rule struct {
	glob       string
	changefreq string
	priority   string
}

func compileRules(rs []config.Rule) []rule {
	out := make([]rule, len(rs))
	for i, r := range rs {
		out[i] = rule{glob: config.NormalizeGlob(r.Match), changefreq: r.ChangeFreq}
		if r.Priority != nil {
			out[i].priority = formatPriority(*r.Priority)
		}
	}
	return out
}

// formatPriority writes 1 as "1.0" and 0.85 as "0.85".
func formatPriority(p float64) string {
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// match returns the first rule matching urlPath, or nil.
func matchRule(rules []rule, urlPath string) *rule {
	for i := range rules {
		if ok, _ := doublestar.Match(rules[i].glob, urlPath); ok {
			return &rules[i]
		}
	}
	return nil
}
