# Folio — the two commands that matter: `make run` and `make test`.
GO      ?= go
# DATA and ADDR, when given (make run ADDR=:9090), become flags; otherwise the
# server reads FOLIO_DATA / FOLIO_ADDR from the environment, then its defaults.
DATA    ?=
ADDR    ?=

# Linters at pinned versions (.ci/deps installs them, as everything else make test needs).
STATICCHECK_VERSION ?= v0.8.2
ERRCHECK_VERSION    ?= v1.10.0
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin

.PHONY: run test deps build vet lint fmt bench bench-go cluster

## run: start the server with embedded bbolt under ./data (nothing else to set up)
run:
	$(GO) run ./cmd/folio serve $(if $(ADDR),--addr $(ADDR)) $(if $(DATA),--data $(DATA))

## cluster: a local cluster to try: PostgreSQL in ./data/cluster/pg (kept between runs; Debian's
## postgresql package), then NODES (3) folio nodes sharing it on 127.0.0.1:8081…, a node that dies
## started again; BALANCER=nginx: nginx in front on 127.0.0.1:8080; Ctrl-C stops it (docs/cluster.md)
NODES    ?=
BALANCER ?=
cluster: build
	./folio cluster $(if $(NODES),--nodes $(NODES)) $(if $(BALANCER),--balancer $(BALANCER))

## test: installs what is missing (deps), then gofmt, go vet, staticcheck and errcheck, then every
## test with the race detector, then the domain and API suites again on PostgreSQL (a server the tests start: pgtest)
test: deps vet lint
	$(GO) test -race -count=1 -timeout 20m ./...
	FOLIO_TEST_STORE=pg $(GO) test -race -count=1 -timeout 20m ./actors/... ./transport/...

## lint: staticcheck, and errcheck (no dropped errors; .ci/errcheck-excludes.txt lists the deliberate ones)
lint: deps
	$(GOBIN_DIR)/staticcheck ./...
	$(GOBIN_DIR)/errcheck -ignoretests -exclude .ci/errcheck-excludes.txt ./...

## deps: what the tests need on a fresh Debian machine (chromium, PostgreSQL, nginx, npm packages, the
## pinned Go tools), installed when missing; without root it says in one line what to run
deps:
	@.ci/deps

vet:
	@test -z "$$(gofmt -l cmd actors transport persistence bench docs 2>/dev/null)" || { echo "gofmt needed:"; gofmt -l cmd actors transport persistence bench docs; exit 1; }
	$(GO) vet ./...

## build: the folio binary in ./folio
build:
	$(GO) build -o folio ./cmd/folio

## bench-go: the Go benchmarks of the durable HTTP paths and raw bbolt commits
bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 3s -count 3 ./persistence/ ./transport/node/

## bench: the standard load suite, every run against a new server process; writes bench/results/<date>.json
bench: build
	@mkdir -p bench/results
	./folio bench --spawn --fresh --scenario all --concurrency 64 --duration 10s --subscribers 5000 --repeat 3 \
		--json bench/results/$$(date -u +%Y-%m-%d).json --commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
