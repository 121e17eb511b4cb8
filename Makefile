# plaios — build and test.
#   make build   build ./plaios
#   make test    install the pinned node tools (testdata/node, npm ci) and run every test with -race
#   make bench   run the benchmarks under bench/ against the tools a user would use instead
#   make fuzz    run each fuzz target for FUZZTIME (default 30s)

GO       ?= go
FUZZTIME ?= 30s
NODE_DIR := testdata/node

.PHONY: build test node-tools bench fuzz lint clean

build:
	CGO_ENABLED=0 $(GO) build -o plaios .

node-tools: $(NODE_DIR)/node_modules/.package-lock.json

$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --foreground-scripts=false
	@touch $@

test: node-tools
	$(GO) vet ./...
	$(GO) test -race -timeout 60m ./...

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
	$(GO) vet ./...

clean:
	rm -rf plaios dist $(NODE_DIR)/node_modules
