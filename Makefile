# The relayer's everyday commands. `make run` and `make test` are all a newcomer needs.
GO        ?= go
DATA_DIR  ?= ./data
BENCH_PKGS = ./eventstore/sqlite/ ./projections/
BENCH_COUNT ?= 3

.PHONY: run test test-short stress bench build generate devchain vet fmt tidy clean

## run: write a simulated history into ./data, then rebuild the read models from it
run:
	$(GO) run ./cmd/relayer serve --data-dir $(DATA_DIR)

## test: every test, with the race detector
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

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

## devchain: the development chain on its own (JSON-RPC on 127.0.0.1:8545 and :8546)
devchain:
	$(GO) run ./cmd/relayer devchain

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
