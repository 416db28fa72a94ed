package head

import "time"

// ParseDate parses a W3C Datetime as a page's head states one (see
// parseDate): YYYY, YYYY-MM, YYYY-MM-DD, or a date and time with a time
// zone, returned in UTC. The lines of extra_urls files (package urlfile)
// carry their dates in the same form, and are read by the same rules.
func ParseDate(s string) (time.Time, error) { return parseDate(s) }
