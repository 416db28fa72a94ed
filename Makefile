GO ?= go

.PHONY: all build test gotest e2e fuzz deploy-check bench example install image deb bin/sitemapd-static clean

PREFIX ?= /usr/local
DESTDIR ?=
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The commit, " (modified)" when tracked files differ from it (sitemapd version).
COMMIT ?= $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { [ -z "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || c="$$c (modified)"; echo "$$c"; })
STAMP = -X main.version=$(VERSION) -X 'main.commit=$(COMMIT)'

all: build

# No -trimpath here: it changes every package's build, so `make build`
# after `go run`, `go build` or `go test` compiled all again (25 s on a
# 2-CPU machine, instead of a 1 s link) and kept a second copy of each
# in the build cache. The release artefacts below keep it: the image's
# and the package's binary must not depend on where they were built.
build:
	$(GO) build -ldflags "$(STAMP)" -o bin/sitemapd ./cmd/sitemapd

# A static binary, for the scratch container image and the Debian package:
# -trimpath makes it the same wherever it is built.
bin/sitemapd-static:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(STAMP)" -o $@ ./cmd/sitemapd

# The whole test suite: formatting, vet, and every test under the race
# detector. Sitemap validation needs xmllint (libxml2-utils) and, once,
# npm to fetch sitemap.xsd (see internal/xsdtest).
test: gotest e2e

gotest:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# The deployment checks: systemd units (systemd-analyze verify, and a
# security exposure of at most 2.0), sitemapd end to end behind a real nginx
# with a real sitemap client (test/e2e.sh), the daemon's self-check of
# its public view as that nginx's configuration breaks it and is fixed
# (test/e2e-selfcheck.sh), hreflang alternates read back through that
# nginx while language directories come and go (test/e2e-hreflang.sh),
# and the container image
# (test/container.sh), and the Debian package (test/deb.sh: built and
# inspected; installed, checked and purged only under CI or with
# SITEMAPD_TEST_DEB=1), and the module as `go install …@latest` meets it
# (test/release.sh). Each says what it checked, and skips with a reason
# where the machine lacks a tool (the first two and the package never under
# CI). None installs system packages outside CI.
e2e:
	test/systemd.sh
	test/e2e.sh
	test/e2e-selfcheck.sh
	test/e2e-hreflang.sh
	test/container.sh
	test/deb.sh
	test/release.sh

# Short fuzzing runs: the name -> URL -> XML chain, the head reader, the
# page store's parser, robots.txt matching against Google's parser, and
# `check` on arbitrary input. Each budget is a count of inputs (about 15 s of
# fuzzing apiece on a 2-CPU machine), not a duration: with a duration, Go
# 1.26's fuzzing coordinator can fail a target with a bare "context deadline
# exceeded" when its time runs out under load, having found nothing
# (go.dev/issue/75804, fixed in Go 1.27). FUZZTIME overrides every budget
# (a count such as 50000x, or a duration).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzNameToLoc -fuzztime $${FUZZTIME:-300000x} ./internal/scan/
	$(GO) test -run '^$$' -fuzz FuzzRead -fuzztime $${FUZZTIME:-300000x} ./internal/head/
	$(GO) test -run '^$$' -fuzz FuzzFastMatchesTokenizer -fuzztime $${FUZZTIME:-100000x} ./internal/head/
	$(GO) test -run '^$$' -fuzz FuzzCleanTitle -fuzztime $${FUZZTIME:-100000x} ./internal/head/
	$(GO) test -run '^$$' -fuzz FuzzStore -fuzztime $${FUZZTIME:-30000x} ./internal/pagestore/
	$(GO) test -run '^$$' -fuzz FuzzRules -fuzztime $${FUZZTIME:-150000x} ./internal/robots/
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime $${FUZZTIME:-50000x} ./internal/validate/
	$(GO) test -run '^$$' -fuzz FuzzRead -fuzztime $${FUZZTIME:-100000x} ./internal/significant/

# Every deploy pattern (cp -r, rsync with and without --inplace and
# --delete, release symlink swaps, a restart across a swap) on a generated
# site of 100,000 pages against the real daemon and a local IndexNow
# receiver (bench/deploy.sh): fails if any pattern sends other URLs than
# the pages that changed in substance. Some 13 minutes on 2 CPUs; CI runs
# it after the suite. Needs rsync.
deploy-check:
	bench/deploy.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bench/build.sh

example:
	$(GO) run ./cmd/sitemapd build -config example/sitemapd.yaml

# The container image (deploy/docker/Containerfile.local) from a static
# binary built here: no registry needed. CONTAINER is podman, docker or
# "buildah" (bud is its build). podman and buildah build the docker image
# format: their default, OCI's, has no HEALTHCHECK and drops it.
CONTAINER ?= podman
image: bin/sitemapd-static
	@ctx=$$(mktemp -d) && trap 'rm -rf "$$ctx"' EXIT && \
	  cp bin/sitemapd-static "$$ctx/sitemapd" && cp /etc/ssl/certs/ca-certificates.crt "$$ctx/" && mkdir "$$ctx/state" && \
	  $(CONTAINER) $(if $(filter buildah,$(CONTAINER)),bud,build) $(if $(filter docker,$(CONTAINER)),,--format docker) --build-arg VERSION="$(VERSION)" --build-arg COMMIT="$(COMMIT)" -f deploy/docker/Containerfile.local -t sitemapd:local "$$ctx"

# The Debian package, dist/sitemapd_VERSION_ARCH.deb: the static binary as
# /usr/bin/sitemapd, the units, /etc/sitemapd/sitemapd.yaml (a conffile),
# the nginx rules, the man page; built by nfpm at a pinned version
# (deploy/deb/build.sh says which and why).
deb: bin/sitemapd-static
	GO="$(GO)" VERSION="$(VERSION)" deploy/deb/build.sh

# Installs the binary, its man page, the systemd units and, if none is there, the example
# configuration; with no DESTDIR, also the sitemapd user (in the web
# server's group, www-data).
# It installs bin/sitemapd as built by `make build` (so that `sudo make
# install` needs no Go in root's PATH).
install:
	@test -x bin/sitemapd || { echo "bin/sitemapd is missing: run make build first"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)/etc/systemd/system $(DESTDIR)/etc/sitemapd
	install -m 0755 bin/sitemapd $(DESTDIR)$(PREFIX)/bin/sitemapd
	install -m 0644 deploy/deb/sitemapd.8 $(DESTDIR)$(PREFIX)/share/man/man8/sitemapd.8
	for u in sitemapd.service sitemapd@.service; do \
	  sed 's|/usr/local/bin/sitemapd|$(PREFIX)/bin/sitemapd|' deploy/systemd/$$u > $(DESTDIR)/etc/systemd/system/$$u; \
	  chmod 0644 $(DESTDIR)/etc/systemd/system/$$u; \
	done
	[ -e $(DESTDIR)/etc/sitemapd/sitemapd.yaml ] || install -m 0644 configs/sitemapd.yaml $(DESTDIR)/etc/sitemapd/sitemapd.yaml
	if [ -z "$(DESTDIR)" ] && ! id sitemapd >/dev/null 2>&1; then \
	  useradd --system --gid www-data --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin sitemapd; \
	fi

clean:
	rm -rf bin dist .cache
