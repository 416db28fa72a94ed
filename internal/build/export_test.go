package build

import "time"

// withClock replaces time.Now (for future-mtime checks).
func withClock(now func() time.Time) Option { return func(e *Engine) { e.opts.now = now } }
