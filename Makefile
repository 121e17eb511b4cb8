# plaios — build and test.
#   make build   build ./plaios
#   make test    install the pinned node tools (testdata/node, npm ci), vet and run every test with -race
#                (vet with -race too: one build configuration for both)
#   make test-quick  the edit loop: the same with -short, which skips the 38 slowest end-to-end
#                tests (the first run, the release jobs, the sandbox probes, the oracles); CI runs make test
#   make bench   run the benchmarks under bench/ against the tools a user would use instead
#   make fuzz    run each fuzz target for FUZZTIME (default 30s)
#   make realworld  sweep the latest published packs (public registry; see realworld/)

GO       ?= go
FUZZTIME ?= 30s
NODE_DIR := testdata/node

.PHONY: build test test-quick node-tools bench fuzz lint clean realworld

build:
	CGO_ENABLED=0 $(GO) build -o plaios .

node-tools: $(NODE_DIR)/node_modules/.package-lock.json

$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --foreground-scripts=false
	@touch $@

test: node-tools
	$(GO) vet -race ./...
	$(GO) test -race -timeout 60m ./...

test-quick: node-tools
	$(GO) test -race -short ./...

bench: node-tools
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./bench/...

fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

lint:
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet -race ./...

clean:
	rm -rf plaios dist $(NODE_DIR)/node_modules

# make realworld: the real-world sweep (needs the public npm registry; not part of make test).
# It packs the latest version of every package realworld/packages.txt names, runs validate and
# guard on each, prints the table and writes it to realworld/latest.md.
realworld: node-tools
	cd realworld && PLAIOS_REALWORLD_TABLE=$(CURDIR)/realworld/latest.md $(GO) test -tags realworld -run TestRealWorld -count=1 -timeout 30m -v .
