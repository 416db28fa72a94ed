package main

import (
	"github.com/sitemapd/sitemapd/internal/config"
)

// credentials checks that the user may read each searchconsole endpoint's
// key: validation, run by whoever runs check, cannot tell (root reads
// anything). A key systemd hands over with LoadCredential= is the
// service's by construction, and is named only inside the unit.
func (p *preflight) credentials(cfg *config.Config) {
	for _, ep := range cfg.Notify.Endpoints {
		if ep.Kind != config.SearchConsole || ep.Credentials == "" {
			continue
		}
		d, err := p.as.may(ep.Credentials, mayRead)
		switch {
		case err != nil:
			p.find(ep.Credentials, "cannot tell whether %s may read it: %v", p.as.User, err)
		case d != nil:
			p.find(ep.Credentials, "%s %s: the key of notify endpoint %s must be the service's: sudo chown %s %s (its mode stays 0600), or hand it over with systemd's LoadCredential= (docs/operations.md, Google: Search Console)",
				p.as.User, d.about(ep.Credentials), ep.Name, p.as.ACLName(), ep.Credentials)
		}
	}
}
