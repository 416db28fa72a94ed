package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Error is one problem with a configuration file, located by line and key.
type Error struct {
	File string // config file path
	Line int    // 1-based; 0 when the key is absent from the file
	Key  string // dotted key path, e.g. "pages.rules[1].match"
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LoadFile reads, decodes and validates the configuration in path.
// The returned error, if any, joins one *Error per problem found.
func LoadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Load(data, path)
}

// Load decodes and validates a configuration; path names it in errors and
// anchors relative paths.
func Load(data []byte, path string) (*Config, error) {
	cfg := Default()
	cfg.File = path

	root, err := topMapping(data, path)
	if err != nil {
		return nil, err
	}
	if k := multiKey(root); k != nil {
		return nil, &Error{File: path, Line: k.Line, Key: k.Value, Msg: "makes this file hold several sites: load it with LoadProcess"}
	}
	lines := map[string]int{}
	var errs []error
	checkKeys(root, reflect.TypeOf(cfg), "", path, lines, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := root.Decode(&cfg); err != nil {
		return nil, typeErrors(err, path, lines)
	}
	if err := cfg.validate(lines); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkKeys walks the YAML mapping alongside the Go type it decodes into,
// reporting every key the type does not have (yaml.v3's KnownFields only
// works on a Decoder, not on a Node, and its messages name Go types rather
// than config keys). It records the line of every key it sees in lines.
func checkKeys(n *yaml.Node, t reflect.Type, prefix, file string, lines map[string]int, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.AliasNode:
		checkKeys(n.Alias, t, prefix, file, lines, errs)
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := joinKey(prefix, k.Value)
			ft, ok := fields[k.Value]
			if !ok {
				*errs = append(*errs, &Error{File: file, Line: k.Line, Key: key, Msg: "unknown key" + suggest(k.Value, fields)})
				continue
			}
			if _, dup := lines[key]; dup {
				*errs = append(*errs, &Error{File: file, Line: k.Line, Key: key, Msg: fmt.Sprintf("key given twice (first on line %d)", lines[key])})
				continue
			}
			lines[key] = k.Line
			checkKeys(v, ft, key, file, lines, errs)
		}
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, v := range n.Content {
			key := fmt.Sprintf("%s[%d]", prefix, i)
			lines[key] = v.Line
			checkKeys(v, t.Elem(), key, file, lines, errs)
		}
	default:
		if msg := checkType(n, t); msg != "" {
			*errs = append(*errs, &Error{File: file, Line: n.Line, Key: prefix, Msg: msg})
		}
	}
}

var durationType = reflect.TypeFor[time.Duration]()

// checkType reports a value of the wrong type for t, saying what is
// expected ("\"fast\" is not a duration such as 500ms"), or "" when it
// decodes. It is tried by decoding, so what it accepts is what Decode
// accepts; only a bare 0 for a duration is made "0s" here, as anyone
// writing "rescan: 0" means.
func checkType(n *yaml.Node, t reflect.Type) string {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return "" // the key with no value: the type's zero value
	}
	if t == durationType && n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Value == "0" {
		n.Tag, n.Value = "!!str", "0s"
	}
	// yaml.v3 truncates a float into an int (depth: 1.5 would be 1).
	integer := t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 && t != durationType
	if err := n.Decode(reflect.New(t).Interface()); err == nil && (!integer || n.Tag != "!!float") {
		return ""
	}
	what := "a list"
	switch n.Kind {
	case yaml.ScalarNode:
		what = strconv.Quote(n.Value)
	case yaml.MappingNode:
		what = "a mapping"
	}
	return what + " is not " + expected(t)
}

// expected says in words what a value of type t looks like.
func expected(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 500ms, 10s, 5m or 6h (a number with its unit)"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number such as 0.5"
	case reflect.String:
		return "a single value (quote it if it holds \": \" or starts with [, {, *, & or !)"
	case reflect.Slice:
		return "a list, such as [a, b] or one \"- item\" a line"
	case reflect.Struct:
		return "a mapping of keys to values (key: value, one a line, indented below it)"
	}
	return "a " + t.String()
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = f.Type
	}
	return m
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// suggest names the known key closest to an unknown one, to catch typos.
func suggest(k string, fields map[string]reflect.Type) string {
	best, bestD := "", 3
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if d := editDistance(k, name); d < bestD {
			best, bestD = name, d
		}
	}
	if best == "" {
		return " (known keys: " + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeErrors turns yaml.v3's "line N: cannot unmarshal …" messages into
// Errors that name the key on that line.
func typeErrors(err error, file string, lines map[string]int) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return &Error{File: file, Msg: stripYAMLPrefix(err.Error())}
	}
	byLine := map[int]string{}
	for k, l := range lines {
		// Prefer the most specific key on a line ("a.b" over "a").
		if cur, ok := byLine[l]; !ok || len(k) > len(cur) {
			byLine[l] = k
		}
	}
	var errs []error
	for _, msg := range te.Errors {
		e := &Error{File: file, Msg: msg}
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Key = byLine[e.Line]
			e.Msg = m[2]
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func stripYAMLPrefix(s string) string {
	return strings.TrimPrefix(s, "yaml: ")
}

// resolve makes p absolute relative to the config file's directory.
func (c *Config) resolve(p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(c.File), p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}
