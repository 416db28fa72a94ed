package searchconsole

// One pass of the endpoint's loop: submit what is new, delete what
// sitemapd submitted and no longer announces, read Google's view when it
// is due.

import (
	"context"
	"slices"
	"time"

	"go.uber.org/zap"
)

// pass does what is due and returns how long until the next pass.
func (c *Client) pass(ctx context.Context) time.Duration {
	c.mu.Lock()
	announced := slices.Clone(c.announced)
	known := c.announced != nil
	submitted := sortedKeys(c.st.Submitted)
	c.mu.Unlock()
	if !known {
		// Nothing is submitted, deleted or polled before the daemon has
		// said what the site announces.
		return PollEvery
	}
	err := c.submitNew(ctx, announced)
	if err == nil {
		err = c.removeGone(ctx, announced, submitted)
	}
	if err == nil && !c.now().Before(c.pollDue()) {
		err = c.poll(ctx, announced)
	}
	if ctx.Err() != nil {
		return 0
	}
	return c.after(err)
}

// after is the wait before the next pass: until the next poll, or after
// a failure 1 minute doubling with each pass that fails, to an hour, and
// at least QuotaWait after a quota error.
func (c *Client) after(err error) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.streak = 0
		return max(0, c.nextPoll.Sub(c.now()))
	}
	c.streak++
	d := maxPassBackoff
	if c.streak-1 < 7 {
		d = min(d, time.Minute<<(c.streak-1))
	}
	if kindOf(err) == Quota {
		d = max(d, QuotaWait)
	}
	c.log.Error("Search Console: "+kindOf(err).String()+" error; trying again later", zap.String("endpoint", c.ep.Name),
		zap.String("property", c.ep.Property), zap.Error(err), zap.Duration("in", d))
	return d
}

func (c *Client) pollDue() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextPoll
}

// submitNew submits each announced sitemap not submitted to the property
// yet: a new index, or one whose URL changed. Google reads a sitemap it
// knows again by itself, so a sitemap is submitted once, not at each
// change. Each success is saved at once.
func (c *Client) submitNew(ctx context.Context, announced []string) error {
	for _, u := range announced {
		c.mu.Lock()
		_, done := c.st.Submitted[u]
		c.mu.Unlock()
		if done {
			continue
		}
		if err := c.submit(ctx, u); err != nil {
			return err
		}
		c.log.Info("submitted the sitemap to Search Console", zap.String("endpoint", c.ep.Name), zap.String("property", c.ep.Property), zap.String("sitemap", u))
		c.mu.Lock()
		c.st.Submitted[u] = c.now().UTC()
		c.nextPoll = time.Time{} // read Google's view of it now
		c.mu.Unlock()
		c.save()
	}
	return nil
}

// removeGone deletes from the property the sitemaps sitemapd submitted
// that the site no longer announces (an index renamed, base_url moved),
// which Google would otherwise go on fetching and report as errors.
// Sitemaps submitted by others are never touched.
func (c *Client) removeGone(ctx context.Context, announced, submitted []string) error {
	for _, u := range submitted {
		if slices.Contains(announced, u) {
			continue
		}
		err := c.remove(ctx, u)
		if kindOf(err) == NotFound {
			err = nil // gone already
		}
		if err != nil {
			return err
		}
		c.log.Info("deleted from Search Console a sitemap sitemapd submitted and no longer announces", zap.String("endpoint", c.ep.Name), zap.String("sitemap", u))
		c.mu.Lock()
		delete(c.st.Submitted, u)
		delete(c.st.Views, u)
		c.mu.Unlock()
		c.save()
	}
	return nil
}

// poll reads Google's view of each announced sitemap. One Google does
// not know (deleted in Search Console by hand) is submitted again at the
// next pass, which comes at once.
func (c *Client) poll(ctx context.Context, announced []string) error {
	views := map[string]View{}
	var resubmit bool
	for _, u := range announced {
		v, err := c.get(ctx, u)
		if kindOf(err) == NotFound {
			c.log.Warn("Search Console does not know a sitemap sitemapd submitted; submitting it again", zap.String("endpoint", c.ep.Name), zap.String("sitemap", u))
			resubmit = true
			continue
		}
		if err != nil {
			return err
		}
		views[u] = v
	}
	c.mu.Lock()
	for u, v := range views {
		c.tell(c.st.Views[u], v)
	}
	c.st.Views = views
	if resubmit {
		for u := range c.st.Submitted {
			if _, ok := views[u]; !ok && slices.Contains(announced, u) {
				delete(c.st.Submitted, u)
			}
		}
		select {
		case c.kick <- struct{}{}:
		default: // a pass is due already
		}
	}
	c.nextPoll = c.now().Add(PollEvery)
	c.mu.Unlock()
	c.save()
	return nil
}

// tell logs what changed in Google's view of a sitemap: a new download,
// errors or warnings appearing or going. c.mu is held.
func (c *Client) tell(old, v View) {
	f := []zap.Field{zap.String("endpoint", c.ep.Name), zap.String("sitemap", v.URL), zap.Time("last_downloaded", v.LastDownloaded),
		zap.Bool("pending", v.Pending), zap.Int64("errors", v.Errors), zap.Int64("warnings", v.Warnings)}
	switch {
	case v.Errors > 0 && old.Errors != v.Errors:
		c.log.Warn("Google reports errors in the sitemap (Search Console, Sitemaps, shows them)", f...)
	case v.Warnings > 0 && old.Warnings != v.Warnings:
		c.log.Warn("Google reports warnings in the sitemap (Search Console, Sitemaps, shows them)", f...)
	case !v.LastDownloaded.Equal(old.LastDownloaded):
		c.log.Info("Google downloaded the sitemap", f...)
	}
}
