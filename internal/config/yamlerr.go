package config

// The errors of a file that is not a YAML mapping at all: empty, or not
// YAML. They must name the line to fix, which yaml.v3 does not always do.

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// topMapping decodes a file's YAML, which must be a mapping.
func topMapping(data []byte, path string) (*yaml.Node, error) {
	doc, err := parseYAML(data)
	if errors.Is(err, io.EOF) {
		return nil, emptyError(data, path)
	}
	if err != nil {
		return nil, syntaxError(data, path, err)
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) { // "---" or "~" alone
		return nil, emptyError(data, path)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: path, Line: root.Line, Msg: "top level must be a mapping of keys to values"}
	}
	return root, nil
}

func parseYAML(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	return &doc, err
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// emptyError says that a file holds no configuration, and what the least
// one holds: yaml.v3's own word for it is "EOF".
func emptyError(data []byte, path string) error {
	what := "the file is empty"
	if len(bytes.TrimSpace(data)) > 0 {
		what = "the file sets nothing (it holds only comments, or an empty document)"
	}
	return &Error{File: path, Msg: what + `: a minimal configuration sets root, the document root, and base_url, the URL it is served at, one a line, e.g. "root: /var/www/html" and "base_url: https://www.example.com/"`}
}

// maxSyntaxLines bounds the search for the line of a syntax error (it
// parses the file once per line): beyond, yaml.v3's line is kept.
const maxSyntaxLines = 5000

// syntaxError is a YAML syntax error at the line to fix. yaml.v3 names
// the 0-based line of the enclosing block's start for a parser error
// ("did not find expected key"), and the line of the value above for a
// tab in an indentation: for a line indented too deep, the line above it
// or higher. The line to fix is the first whose addition to the lines
// before it makes them fail with the same problem.
func syntaxError(data []byte, path string, err error) error {
	line, problem := yamlErrLine(err), yamlProblem(err)
	if first := firstFailing(data, problem); first > 0 {
		line = first
	}
	return &Error{File: path, Line: line, Msg: "invalid YAML: " + problem + indentHint(data, line, problem)}
}

// firstFailing returns the line whose addition to the lines before it
// makes them fail with problem, or 0.
func firstFailing(data []byte, problem string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxSyntaxLines {
		return 0
	}
	end := 0
	for i, l := range lines {
		end += len(l)
		// Cut inside a quoted string or a [list] a prefix fails with
		// another problem (the end of the stream): it is passed over.
		if _, err := parseYAML(data[:end]); err != nil && !errors.Is(err, io.EOF) && yamlProblem(err) == problem {
			return i + 1
		}
	}
	return 0
}

// overIndented are the problems yaml.v3 meets on a line indented deeper
// than the one above it, a key or list item indented too far: YAML reads
// the line as part of the value above, and fails.
var overIndented = []string{
	"mapping values are not allowed in this context", // after a plain value
	"did not find expected key",                      // after a quoted value or a [list]
	"did not find expected '-' indicator",            // after a list item
}

// indentHint explains the usual cause of an overIndented problem, when
// the line is indented deeper than the one above it.
func indentHint(data []byte, line int, problem string) string {
	if line < 2 || !slices.Contains(overIndented, problem) {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return ""
	}
	here := indentation(lines[line-1])
	for above := line - 1; above >= 1; above-- {
		text := strings.TrimSpace(lines[above-1])
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		// Below a key whose value follows ("watch:", "- ", "|"), deeper
		// is right: the problem is another.
		if indentation(lines[above-1]) >= here || strings.HasSuffix(text, ":") || text == "-" || strings.HasSuffix(text, "|") || strings.HasSuffix(text, ">") {
			return ""
		}
		return "; line " + strconv.Itoa(line) + " is indented deeper than line " + strconv.Itoa(above) +
			" above it, as if it continued that line's value: indent it as far as the key it belongs beside"
	}
	return ""
}

func indentation(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlErrLine is the line yaml.v3's message names, or 0.
func yamlErrLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// yamlProblem is yaml.v3's message without its prefix and line.
func yamlProblem(err error) string {
	return yamlLineRE.ReplaceAllString(stripYAMLPrefix(err.Error()), "")
}
