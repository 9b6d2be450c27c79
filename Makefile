# The relayer's everyday commands. `make run` and `make test` are all a newcomer needs.
GO        ?= go
DATA_DIR  ?= ./data
BENCH_PKGS = ./eventstore/sqlite/ ./projections/
BENCH_COUNT ?= 3

DEVCHAIN_RPC ?= 127.0.0.1:8545
# The development chain's latency profile under make run: production (answers after delays like
# the real KMS nodes and coprocessors) or instant (the tests').
DEVCHAIN_PROFILE ?= production
# The fuzz targets over every POST body and the admin body: briefly in make test, longer in make fuzz.
FUZZ_TARGETS = ./domain/:FuzzParseInputProof ./domain/:FuzzParsePublicDecrypt ./domain/:FuzzParseUserDecrypt \
	./domain/:FuzzParseDelegatedUserDecrypt ./api/:FuzzAdminConfigBody
FUZZTIME ?= 60s

.PHONY: run test test-short stress bench fuzz build generate devchain devkeys vet fmt tidy clean

## run: the whole relayer on 127.0.0.1:8080 with the in-process development chain, whose JSON-RPC
## (for the public SDK's network setting) is on $(DEVCHAIN_RPC)
run:
	RELAYER_DEVCHAIN_PROFILE=$(DEVCHAIN_PROFILE) $(GO) run ./cmd/relayer serve --data-dir $(DATA_DIR) --devchain-rpc $(DEVCHAIN_RPC)

## test: every test, with the race detector (after installing the npm packages the SDK and
## contract tests use)
test: node_modules
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=10000x

## fuzz: each request-body fuzz target for FUZZTIME, a duration or a count of inputs (make fuzz FUZZTIME=10m;
## make test runs 10000 inputs each: a count, not a time, so a loaded machine does not cut it short)
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

## node_modules: the pinned npm packages (solc, the public SDK), from package-lock.json
node_modules: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund && touch node_modules; \
	else echo "npm is not installed: the SDK and contract tests skip (and fail with CI=true)"; fi

## test-short: the quick tests, no race detector
test-short:
	$(GO) test -short -count=1 ./...

## stress: the concurrency-heavy tests, many times over
stress:
	$(GO) test -race -count=10 ./eventstore/... ./projections/

## bench: the benchmarks recorded in docs/BENCHMARKS.md
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=$(BENCH_COUNT) $(BENCH_PKGS)
	$(GO) test -run '^$$' -bench . -benchtime 100000x -count=$(BENCH_COUNT) ./api/
	$(GO) test -run '^$$' -bench EndToEndD500 -benchtime 1000x -count=$(BENCH_COUNT) ./workers/

## chaos: the chain-outage probe alone, without the race detector: the development chain behind fault
## proxies that refuse, then black-hole, its JSON-RPC while serve runs jobs; CHAOS=1 is the shortened run
## (about 2 minutes, also part of make test), make chaos CHAOS=full the long one (1,000 jobs, a 90 s
## black hole; 5 to 10 minutes)
.PHONY: chaos
CHAOS ?= 1
chaos:
	RELAYER_CHAOS=$(CHAOS) $(GO) test -count=1 -v -timeout 30m -run '^TestChaos' ./cmd/relayer/

## faults: the fault-injection runs alone, without the race detector (issue 14): the development chain
## behind rpcfault proxies that answer 20% of serve's JSON-RPC requests with a rate limit (every form of
## Retry-After, X-RateLimit-Reset, JSON-RPC -32005), 502/503/504, a dropped connection or a 2 s answer,
## against a baseline without faults in the same run, then a fee spike that serve's transactions get
## through by replacement. FAULTS=full (the default here) is the issue's 500 jobs a run at 2 a second,
## about 10 minutes; FAULTS=1 the shortened run (60 jobs, also part of make test);
## FAULTS_JOBS_PER_SECOND=5 offers the jobs faster
.PHONY: faults
FAULTS ?= full
FAULTS_JOBS_PER_SECOND ?=
faults:
	RELAYER_FAULTS=$(FAULTS) RELAYER_FAULTS_JOBS_PER_SECOND=$(FAULTS_JOBS_PER_SECOND) \
		$(GO) test -count=1 -v -timeout 40m -run '^TestFault' ./cmd/relayer/

## devchain: the development chain on its own (JSON-RPC on 127.0.0.1:8545 and :8546)
devchain:
	$(GO) run ./cmd/relayer devchain

## devkeys: regenerate the development TFHE key material (minutes; see workers/devchain/devkeys/generate.js)
devkeys: node_modules
	node workers/devchain/devkeys/generate.js

## generate: recompile the gateway contracts (pinned solc from npm) and regenerate their bindings
generate:
	npm ci
	$(GO) generate ./workers/gateway/...

build:
	$(GO) build -o bin/relayer ./cmd/relayer

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin
