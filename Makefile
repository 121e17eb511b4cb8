# plaios — build and test.
#   make build   build ./plaios
#   make test    install the pinned node tools (testdata/node, npm ci), vet and run every test with -race
#                (vet with -race too: one build configuration for both; go test's own vet pass off)
#   make test-quick  the edit loop: the same with -short, which skips the slowest end-to-end
#                tests (the first run, the release jobs, the sandbox probes, the oracles); CI runs make test
#   make bench   run the benchmarks under bench/ against the tools a user would use instead
#   make fuzz    run each fuzz target for FUZZTIME (default 30s)
#   make realworld  sweep the latest published packs (public registry; see realworld/)

GO       ?= go
FUZZTIME ?= 30s
NODE_DIR := testdata/node

# The sandbox's init for the tests: ./internal/sandbox/initbin built without -race. The
# race-built test binaries start every contained child under it instead of under themselves
# (a race-built binary costs 80–100 ms of CPU at each start; see internal/sandbox's
# initProgram). Only the tests are linked to it; `make build` and releases never are.
# The test binaries are linked without DWARF and the symbol table (-s -w): a race report and a
# panic read the runtime's own tables, not these, and the linker does less: cmd's test binary
# links in 1.4 s of CPU instead of 2.3 s (a small package's gains less).
SANDBOX_INIT := $(CURDIR)/testdata/.bin/plaios-sandbox-init
TEST_LDFLAGS := '-ldflags=-s -w -X=github.com/plaios/plaios/internal/sandbox.initProgram=$(SANDBOX_INIT)'

# The tests' temporary folders (go test's TMPDIR, which every test's t.TempDir and every child
# inherit) on a tmpfs, unless TMPDIR is set: on a disk the kernel's work for the files the
# tests' installs write and remove cost a run of `make test` about 60 s of system time and a
# minute of its ten (README, "How long `make test` takes", 2026-12-07). /dev/shm/plaios-test-<uid>
# when that folder is this user's, runs programs (a tmpfs mounted noexec would refuse node's
# native addons) and has 4 GiB free (a run's peak is 1.3 GB); else the machine's TMPDIR. A
# fixed folder, so that the go command's test cache, which keys a result on the TMPDIR the test
# read, replays the next run. `make test TEST_TMPDIR=` keeps the machine's; TEST_TMPDIR=DIR
# uses DIR. Worked out once, when a recipe first needs it; the probe's script (named by the
# shell's PID, so that two makes at once do not share it) is removed again.
TEST_TMPDIR = $(eval TEST_TMPDIR := $(if $(TMPDIR),,$(shell d=/dev/shm/plaios-test-$$(id -u); \
	f="$$d/.runs.$$$$"; mkdir -p "$$d" 2>/dev/null && [ -O "$$d" ] && chmod 755 "$$d" && \
	printf 'exit 0\n' > "$$f" && chmod 755 "$$f" && "$$f" 2>/dev/null && \
	[ "$$(df -Pk "$$d" | awk 'NR == 2 { print $$4 }')" -ge 4194304 ] && echo "$$d"; rm -f "$$f")))$(TEST_TMPDIR)
TEST_ENV = $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR))

.PHONY: build test test-quick node-tools sandbox-init bench fuzz lint clean realworld

build:
	CGO_ENABLED=0 $(GO) build -o plaios .

node-tools: $(NODE_DIR)/node_modules/.package-lock.json

$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --foreground-scripts=false
	@touch $@

# Built in a temporary folder and copied into place only when its bytes changed, renamed
# there so that a run of the tests starting it meanwhile is not disturbed. The tests stat it
# and list testdata/, so the go command's test cache would run every package again for a new
# file, or a changed folder, of the same bytes.
sandbox-init:
	@mkdir -p $(dir $(SANDBOX_INIT))
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GO) build -o "$$tmp/init" ./internal/sandbox/initbin && \
	if ! cmp -s "$$tmp/init" $(SANDBOX_INIT); then \
		cp "$$tmp/init" $(SANDBOX_INIT).$$$$ && mv -f $(SANDBOX_INIT).$$$$ $(SANDBOX_INIT) && \
		echo "built $(SANDBOX_INIT)"; \
	fi

# go test's own vet pass (a subset of go vet's analyzers, keyed apart from go vet's results in
# the build cache) is off: go vet has just run every analyzer on the same packages and their
# tests. On an empty build cache that pass cost 44 s of CPU (102 s → 58 s to build, vet and
# link every test binary).
test: node-tools sandbox-init
	$(GO) vet -race ./...
	$(TEST_ENV) $(GO) test -race $(TEST_LDFLAGS) -vet=off -timeout 60m ./...
	$(TEST_ENV) $(GO) test -race -tags realworld -skip '^TestRealWorld$$' ./realworld

test-quick: node-tools sandbox-init
	$(TEST_ENV) $(GO) test -race $(TEST_LDFLAGS) -short ./...

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
	rm -rf plaios dist $(NODE_DIR)/node_modules $(dir $(SANDBOX_INIT))

# make realworld: the real-world sweep (needs the public npm registry; not part of make test).
# It packs the latest version of every package realworld/packages.txt names, runs validate and
# guard on each, then installs them (one project per runtime) and runs mcp serve and the
# runtime's export on each installed copy, holds each Pi package to the pinned Pi itself, prints
# the table and writes it to realworld/latest.md. PLAIOS_REALWORLD_PACKAGES names another list.
realworld: node-tools
	cd realworld && PLAIOS_REALWORLD_TABLE=$(CURDIR)/realworld/latest.md $(GO) test -tags realworld -run TestRealWorld -count=1 -timeout 60m -v .
