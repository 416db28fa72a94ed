GO ?= go

.PHONY: all build test fuzz bench example clean

all: build

build:
	$(GO) build -o bin/sitemapd ./cmd/sitemapd

# The whole test suite: formatting, vet, and every test under the race
# detector. Sitemap validation needs xmllint (libxml2-utils) and, once,
# npm to fetch sitemap.xsd (see internal/xsdtest).
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# A short fuzzing run of the name -> URL -> XML chain.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzNameToLoc -fuzztime $${FUZZTIME:-30s} ./internal/build/

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bench/build.sh

example:
	$(GO) run ./cmd/sitemapd build -config example/sitemapd.yaml

clean:
	rm -rf bin .cache
