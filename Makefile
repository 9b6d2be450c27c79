# The relayer's everyday commands. `make run` and `make test` are all a newcomer needs.
GO        ?= go
DATA_DIR  ?= $(or $(RELAYER_DATA_DIR),./data)
BENCH_PKGS = ./eventstore/sqlite/ ./projections/ ./archive/
BENCH_COUNT ?= 3

DEVCHAIN_RPC ?= 127.0.0.1:8545
# The development build: what make build writes and make run runs.
BIN ?= bin/relayer
# Where make run's API listens.
LISTEN ?= $(or $(RELAYER_LISTEN),127.0.0.1:8080)
# The development chain's latency profile under make run: production (answers after delays like
# the real KMS nodes and coprocessors) or instant (the tests').
DEVCHAIN_PROFILE ?= production
# The fuzz targets over every POST body and the admin body: briefly in make test, longer in make fuzz.
FUZZ_TARGETS = ./domain/:FuzzParseInputProof ./domain/:FuzzParsePublicDecrypt ./domain/:FuzzParseUserDecrypt \
	./domain/:FuzzParseDelegatedUserDecrypt ./domain/:FuzzReadObject ./api/:FuzzAdminConfigBody
FUZZTIME ?= 60s
# The build tag of the production binary: the relayer without the in-process development chain,
# which links no go-ethereum node (cmd/relayer/devchain_off.go).
PRODUCTION_TAGS = nodevchain
# The retention test make test runs again at the scale of 100k jobs.
RETENTION_SCALE_TEST = TestEndedJobsPastTheirWindowLeaveTheLiveStoreAndTheWholeLogStillReplays

.PHONY: run test debian-packages test-short stress bench fuzz build build-production generate devchain devkeys vet fmt tidy clean

## run: relayer serve with its API on 127.0.0.1:8080 (LISTEN), its SQLite store ./data/relayer.db (DATA_DIR)
## and the in-process development chain in the production latency profile (DEVCHAIN_PROFILE=instant:
## the tests'), the chain's JSON-RPC for the public SDK on 127.0.0.1:8545 (DEVCHAIN_RPC); the admin
## API is on when RELAYER_ADMIN_TOKEN is set
## (built into $(BIN), bin/relayer, first: go run would end with exit status 1 after Ctrl-C, even on a clean stop)
run: build
	RELAYER_DEVCHAIN_PROFILE=$(DEVCHAIN_PROFILE) exec $(BIN) serve --listen $(LISTEN) --data-dir $(DATA_DIR) --devchain-rpc $(DEVCHAIN_RPC)

## test: go vet (of the production build too), then every test, with the race detector (after
## installing the npm packages the SDK and contract tests use, the Debian packages the browser
## and alert-rule tests use, and the KMS emulator), then the retention test at its full scale
## (100k jobs over several windows; without the race detector, which would make it ten times longer)
test: node_modules debian-packages local-kms
	$(GO) vet ./...
	$(GO) vet -tags $(PRODUCTION_TAGS) ./cmd/relayer
	$(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -count=1 -timeout 20m -run '^$(RETENTION_SCALE_TEST)$$' ./workers/archiver/ -args -archiver.jobs=100000
	$(MAKE) --no-print-directory fuzz FUZZTIME=10000x

## fuzz: each request-body fuzz target for FUZZTIME, a duration or a count of inputs (make fuzz FUZZTIME=10m;
## make test runs 10000 inputs each: a count, not a time, so a loaded machine does not cut it short)
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

## local-kms: the AWS KMS emulator the KMS signer's tests run against (workers/gateway/kmstest), at the
## version go.mod pins (a tool directive), installed in $(go env GOPATH)/bin where the tests look for it;
## without it they skip (and fail with CI=true)
LOCAL_KMS := $(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin/local-kms
.PHONY: local-kms
local-kms: $(LOCAL_KMS)
$(LOCAL_KMS): go.mod
	GOBIN=$(dir $(LOCAL_KMS)) $(GO) install github.com/nsmithuk/local-kms
	@touch $@

## node_modules: the pinned npm packages (solc, the public SDK, hyparquet for the archive's Parquet), from package-lock.json
node_modules: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund && touch node_modules; \
	else echo "npm is not installed: the SDK and contract tests skip (and fail with CI=true)"; fi

## debian-packages: what the browser and alert-rule tests run, from Debian's packages: chromium (the
## dashboard's tests drive it with playwright-core) and prometheus (for promtool); installed with
## apt-get when missing and this runs as root, else named so that whoever can install them does
DEBIAN_PACKAGES = chromium:chromium prometheus:promtool
debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do command -v $${p##*:} >/dev/null 2>&1 || missing="$$missing $${p%%:*}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "missing Debian packages:$$missing (apt-get install$$missing): the tests that need them skip (and fail with CI=true)"; fi

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
	$(GO) test -run '^$$' -bench Deliveries -benchtime 4000x -count=$(BENCH_COUNT) ./workers/delivery/

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

## alerts: promtool's checks of the Prometheus alert rules in deploy/ and their unit tests (Debian's
## prometheus package has promtool; go test ./cmd/relayer/ also checks the metrics they name exist)
.PHONY: alerts
alerts:
	promtool check rules deploy/prometheus/alerts.yml
	promtool test rules deploy/prometheus/alerts_test.yml

## webhook-faults: the webhook fault run alone, the long one: serve SIGKILLed ten times while it delivers the
## transitions of 1,000 jobs (about 4,600) to a receiver that answers 500 and times out by turns (about two
## minutes; make test runs the shortened one, 220 jobs and four kills, in about 30 s)
.PHONY: webhook-faults
webhook-faults:
	RELAYER_WEBHOOK_FAULTS=full $(GO) test -count=1 -v -timeout 30m -run '^TestWebhookDeliveriesSurvive' ./cmd/relayer/

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

## build: the relayer with the development chain (bin/relayer): what make run runs, zero setup
build:
	$(GO) build -o $(BIN) ./cmd/relayer

## build-production: the relayer without the development chain (bin/production/relayer, built with
## -tags nodevchain): no go-ethereum node linked, about half the size; serve needs an external chain
## (chain.rpc_url, chain.contracts, chain.signer, ...) and relayer devchain is not there
build-production:
	$(GO) build -tags $(PRODUCTION_TAGS) -o bin/production/relayer ./cmd/relayer

vet:
	$(GO) vet ./...
	$(GO) vet -tags $(PRODUCTION_TAGS) ./cmd/relayer

fmt:
	gofmt -w $$(git ls-files '*.go')

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin
