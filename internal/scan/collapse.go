package scan

import (
	"regexp"
	"slices"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// collapser holds back a walk's warnings and errors, and logs each kind
// once when the walk ends (Walk.Summary), with how many pages it concerned
// and the fields of the one whose path sorts first (the walk is parallel:
// the first met would vary from run to run): a site whose every page has the same problem
// logs one line per publish, not one per page. Entries below warning
// level (the debug line per page left out) pass through at once.
type collapser struct {
	mu    sync.Mutex
	kinds map[string]*kind
	order []string // kinds met
}

type kind struct {
	core   zapcore.Core // the core the first entry came through (its With fields)
	entry  zapcore.Entry
	fields []zapcore.Field
	n      int
	unit   string // what n counts: "pages", unless countedAs says
}

// quoted matches the values messages quote ("page head: hreflang \"x\"
// …"): they vary from page to page, the kind of problem does not.
var quoted = regexp.MustCompile(`"[^"]*"`)

// logger returns log with warnings and errors held back by c.
func (c *collapser) logger(log *zap.Logger) *zap.Logger {
	return log.WithOptions(zap.WrapCore(func(inner zapcore.Core) zapcore.Core {
		return &collapseCore{Core: inner, c: c}
	}))
}

func (c *collapser) hold(core zapcore.Core, ent zapcore.Entry, fields []zapcore.Field) {
	key := quoted.ReplaceAllString(ent.Message, `"…"`)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kinds == nil {
		c.kinds = map[string]*kind{}
	}
	k := c.kinds[key]
	switch {
	case k == nil:
		k = &kind{core: core, entry: ent, fields: fields, unit: unitOf(fields)}
		c.kinds[key] = k
		c.order = append(c.order, key)
	case pathOf(fields) < pathOf(k.fields):
		k.core, k.entry, k.fields = core, ent, fields
	}
	k.n++
}

// pathOf is an entry's "path" field, or "".
func pathOf(fields []zapcore.Field) string {
	for _, f := range fields {
		if f.Key == "path" && f.Type == zapcore.StringType {
			return f.String
		}
	}
	return ""
}

// unitOf is what an entry's count counts: its countedAs field's, or
// pages.
func unitOf(fields []zapcore.Field) string {
	for _, f := range fields {
		if f.Key == "counted_as" && f.Type == zapcore.SkipType {
			return f.String
		}
	}
	return "pages"
}

// flush logs each kind held, once, and forgets them.
func (c *collapser) flush() {
	c.mu.Lock()
	kinds, order := c.kinds, c.order
	c.kinds, c.order = nil, nil
	c.mu.Unlock()
	slices.Sort(order) // the order met varies with the walk's
	for _, key := range order {
		k := kinds[key]
		fields := k.fields
		if k.n > 1 {
			fields = append(fields[:len(fields):len(fields)], zap.Int(k.unit, k.n))
		}
		k.core.Write(k.entry, fields)
	}
}

// collapseCore is the zapcore.Core of a collapser's logger.
type collapseCore struct {
	zapcore.Core
	c *collapser
}

func (cc *collapseCore) With(fields []zapcore.Field) zapcore.Core {
	return &collapseCore{Core: cc.Core.With(fields), c: cc.c}
}

func (cc *collapseCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if cc.Enabled(ent.Level) {
		return ce.AddCore(ent, cc)
	}
	return ce
}

func (cc *collapseCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	if ent.Level < zapcore.WarnLevel {
		return cc.Core.Write(ent, fields)
	}
	cc.c.hold(cc.Core, ent, fields)
	return nil
}
