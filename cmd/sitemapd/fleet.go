package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/fleet"
)

type fleetFlags struct{ timeout time.Duration }

func (f *fleetFlags) define(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "how long to wait for etcd")
}

// cmdFleet prints what etcd holds of each site's fleet: its servers, the
// leader, the versions recorded.
func cmdFleet(args []string, stdout, stderr io.Writer) int {
	var f fleetFlags
	path, site, ok := parseConfigFlag("fleet", args, stderr, f.define)
	if !ok {
		return ExitUsage
	}
	_, sites, ok := loadSites(path, site, stderr)
	if !ok {
		return ExitUsage
	}
	status, any := ExitOK, false
	for _, cfg := range sites {
		if !cfg.Fleet.On() {
			continue
		}
		any = true
		if !printFleet(cfg, f.timeout, stdout, stderr) {
			status = ExitFailure
		}
	}
	if !any {
		fmt.Fprintf(stderr, "sitemapd fleet: %s: no fleet (fleet.etcd.endpoints is not set)\n", path)
		return ExitFailure
	}
	return status
}

// printFleet prints one site's fleet, reporting whether etcd answered.
func printFleet(cfg *config.Config, timeout time.Duration, stdout, stderr io.Writer) bool {
	a, err := fleet.New(&cfg.Fleet, zap.NewNop())
	if err != nil {
		fmt.Fprintf(stderr, "sitemapd fleet: %v\n", err)
		return false
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, err := a.Inspect(ctx)
	if err != nil {
		fmt.Fprintf(stdout, "fleet %s: etcd unreachable: %v\n", cfg.Fleet.Prefix, err)
		return false
	}
	names := slices.Clone(v.Servers)
	if len(names) > 0 {
		names[0] += " (leader: sends the notifications)"
	}
	servers := strings.Join(names, ", ")
	if servers == "" {
		servers = "none running"
	}
	me, state := cfg.Fleet.ServerName(), "running"
	if !slices.Contains(v.Servers, me) {
		state = "not running, or not connected to etcd"
	}
	fmt.Fprintf(stdout, "fleet %s (%d etcd endpoints, revision %d)\n", cfg.Fleet.Prefix, len(cfg.Fleet.Etcd.Endpoints), v.Revision)
	fmt.Fprintf(stdout, "servers: %s\n", servers)
	fmt.Fprintf(stdout, "this server: %s, %s\n", me, state)
	fmt.Fprintf(stdout, "versions recorded: %d\n", v.Versions)
	return true
}
