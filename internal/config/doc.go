// Package config loads and validates sitemapd's YAML configuration.
//
// Loading is strict: unknown keys, values of the wrong type and values that
// fail validation are all errors, and every error names the file, the line
// and the key (for example "site.yaml:7: pages.rules[0].priority: 1.5 is
// outside 0.0–1.0"). Defaults are applied first (Default), then the values
// are normalised (normalize.go: relative paths resolved against the
// directory of the config file, base_url made canonical, derived values
// such as Mode set), then all validation happens in one pass (validate.go:
// a short validator per section, called in the order of their messages),
// so a caller either gets a complete, usable *Config or an error and
// nothing else.
//
// A file may hold several sites (sites:, include:): LoadProcess reads it
// into a Process, whose sites are each a *Config as one site's file gives,
// and whose invalid sites fail alone (sites.go).
package config
