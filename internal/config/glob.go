package config

import "strings"

// NormalizeGlob anchors a user glob: patterns starting with "/" match from
// the site root, others match at any depth ("*.pdf" means "**/*.pdf").
func NormalizeGlob(g string) string {
	if strings.HasPrefix(g, "/") {
		return g
	}
	return "/**/" + strings.TrimPrefix(g, "**/")
}
