package daemon

import "time"

// progressSource reports how far the engine's publishes have got:
// directory entries its walks have read and steps its publisher has taken
// (files written, renamed, removed, synced). Both only grow, and may be
// read from any goroutine while a publish runs (build.Engine.Progress).
type progressSource func() (entries, steps int64)

// statusEvery is how often the main loop beats and refreshes the status
// when no watchdog sets the pace.
const statusEvery = 5 * time.Second
