package safefile

import (
	"fmt"
	"os"
	"time"
)

// SyncDir syncs a directory, making the renames and removals in it
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Quarantine moves a state file that cannot be read aside, for whoever
// wants to look, so that a new one can take its place. It returns where
// it went: path.corrupt-<UTC time>, with a number added if a file moved
// aside before has that name. It is the one way sitemapd sets a damaged
// file of its state aside.
func Quarantine(path string) (string, error) {
	base := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	aside := base
	for n := 1; ; n++ {
		if _, err := os.Lstat(aside); err != nil {
			break // free (or the rename will say why not)
		}
		aside = fmt.Sprintf("%s.%d", base, n)
	}
	return aside, os.Rename(path, aside)
}
