package validate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// runText checks a text sitemap: one absolute URL a line, UTF-8, and
// nothing else, within the protocol's limits.
func (c *checker) runText(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			c.add(n, "empty line: a text sitemap holds one URL a line and nothing else", false)
			continue
		case !utf8.ValidString(line):
			c.add(n, "not UTF-8, which text sitemaps must be", false)
			continue
		}
		c.res.Entries++
		if c.res.Entries == sitemap.MaxItems+1 {
			c.add(n, fmt.Sprintf("more than %d URLs", sitemap.MaxItems), false)
		}
		c.loc(line, n)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		c.add(n+1, "a line of more than 1 MiB: not a text sitemap", false)
		return nil
	}
	if sc.Err() != nil {
		return sc.Err()
	}
	if c.res.Entries == 0 && len(c.res.Problems) == 0 {
		c.add(0, "a text sitemap needs at least one URL", false)
	}
	return nil
}
