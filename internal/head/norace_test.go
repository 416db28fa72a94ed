//go:build !race

package head

const raceEnabled = false
