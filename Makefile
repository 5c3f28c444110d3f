# Hivecrawl's build. `make help` lists the targets.
GO       ?= go
PKGS     ?= ./...
BIN      ?= bin/hivecrawl
# The version is cmd/hivecrawl/version.go's; the build names the commit.
COMMIT   ?= $(shell . scripts/lib.sh && commit_id)
LDFLAGS  := -s -w -X main.commit=$(COMMIT)
export CGO_ENABLED ?= 0

.PHONY: help run test bench lint build fuzz clean package results check-results

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## Build bin/hivecrawl
	@. scripts/lib.sh && need_go
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hivecrawl

run: build ## Run Hivecrawl's main job (see README)
	./scripts/run.sh $(BIN)

test: ## Vet, check formatting, run every test with the race detector
	./scripts/test.sh

lint: ## go vet and gofmt only
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: ## Run the benchmarks the issues name and print ratios
	./scripts/bench.sh

results: ## Write docs/results again from the simulator (about 5 minutes)
	./scripts/results.sh write

check-results: ## Fail when a committed result no longer follows from the code
	./scripts/results.sh check

fuzz: ## Run each fuzz target briefly (FUZZTIME=10s)
	./scripts/fuzz.sh

package: ## Build the .deb, .rpm and Windows installer into dist/
	./scripts/package.sh

clean: ## Remove build output
	rm -rf bin dist
