package status

import "time"

// SetBeforeRename makes h call f between writing its new file and renaming
// it in place.
func SetBeforeRename(h *History, f func()) { h.beforeRename = f }

// SetClock sets the clock the overview counts ages from.
func (h *Handler) SetClock(now func() time.Time) { h.now = now }
