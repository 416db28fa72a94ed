//go:build race

package head

// raceEnabled: the race detector is on, and sync.Pool drops some of what
// it is given, at random: allocations are not counted then.
const raceEnabled = true
