package config

import (
	"path/filepath"
	"testing"
)

// TestYAMLErrors: a file with no configuration says so and what the
// least one sets; a syntax error names the line to fix, which for a
// parser error is not the line yaml.v3 names (it names the line above,
// or the start of the enclosing block: indent-quoted's line 2,
// indent-nested's 3, indent-list's 4, tab's 2), and says when that line
// is indented deeper than the one above it.
func TestYAMLErrors(t *testing.T) {
	const minimal = `: a minimal configuration sets root, the document root, and base_url, the URL it is served at, one a line, e.g. "root: /var/www/html" and "base_url: https://www.example.com/"`
	for _, tc := range []struct{ file, want string }{
		{"empty.bad.yml", "empty.bad.yml: the file is empty" + minimal},
		{"comments.bad.yml", "comments.bad.yml: the file sets nothing (it holds only comments, or an empty document)" + minimal},
		{"indent-plain.bad.yml", "indent-plain.bad.yml:2: invalid YAML: mapping values are not allowed in this context; " +
			"line 2 is indented deeper than line 1 above it, as if it continued that line's value: indent it as far as the key it belongs beside"},
		{"indent-quoted.bad.yml", "indent-quoted.bad.yml:3: invalid YAML: did not find expected key; " +
			"line 3 is indented deeper than line 2 above it, as if it continued that line's value: indent it as far as the key it belongs beside"},
		{"indent-nested.bad.yml", "indent-nested.bad.yml:7: invalid YAML: did not find expected key; " +
			"line 7 is indented deeper than line 4 above it, as if it continued that line's value: indent it as far as the key it belongs beside"},
		{"indent-list.bad.yml", "indent-list.bad.yml:6: invalid YAML: did not find expected '-' indicator; " +
			"line 6 is indented deeper than line 5 above it, as if it continued that line's value: indent it as far as the key it belongs beside"},
		{"tab.bad.yml", "tab.bad.yml:3: invalid YAML: found a tab character that violates indentation"},
		// An unclosed [list] is not an indentation problem: no hint.
		{"flow.bad.yml", "flow.bad.yml:4: invalid YAML: did not find expected ',' or ']'"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			_, err := LoadFile(path)
			if err == nil || err.Error() != "testdata/"+tc.want {
				t.Errorf("LoadFile:\n got %v\nwant %s", err, "testdata/"+tc.want)
			}
			// A file of several sites, or one included, is read the same.
			if _, err := LoadProcessFile(path); err == nil || err.Error() != "testdata/"+tc.want {
				t.Errorf("LoadProcessFile:\n got %v\nwant %s", err, "testdata/"+tc.want)
			}
		})
	}
}
