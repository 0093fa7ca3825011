# flinklab — the only prerequisite is Go 1.26.

GO ?= go

.PHONY: run test bench lint vet diagrams chaos

# run: the embedded demo (a MiniCluster runs WordCount and prints its trace).
# INJECT=mN breaks step mN once (e.g. make run INJECT=m9, or INJECT=m10:jar-corrupted).
run:
	$(GO) run ./tools/demo $(if $(INJECT),-inject $(INJECT))

# test: vet, every test under the race detector, then the course's own
# checks: every exercise proven honest (learn verify), every code link of
# the lessons resolving and every hole marked with its step (learn lint).
# The tests and verify run side by side, each printing its output whole
# when it is done: many tests wait on real processes and sockets, and
# verify's builds use the cores meanwhile.
test: vet
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-race test-verify
	$(GO) run ./tools/learn lint

.PHONY: test-race test-verify
test-race:
	$(GO) test -race -count=1 ./...

test-verify:
	$(GO) run ./tools/learn verify

vet:
	$(GO) vet ./...

# chaos: 20 leader kills in a row on a ZooKeeper HA cluster of real
# processes, with a job running (about 40 s; CI runs it after make test).
chaos:
	$(GO) test -race -count=1 -tags chaos -run '^TestLeaderKillsInARow$$' ./tools/flink/

# bench: the benchmarks, a few runs each (compare runs with benchstat),
# then the learner's loop: `learn check` timed in a copy of the tree, on an
# empty build cache and after edits (tools/learn/loopbench). SKIP_COLD=1
# leaves out the empty-cache part, which takes minutes.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=5 $$($(GO) list ./... | grep -v /runtime/minicluster)
	$(GO) test -run='^$$' -bench=SubmitToRunning -benchtime=200x -count=5 ./runtime/minicluster/
	$(GO) run ./tools/learn/loopbench $(if $(SKIP_COLD),-skip-cold)

# lint: formatting and vet.
lint: vet
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# diagrams: regenerate diagrams/ (DOT and Mermaid sources, README.md, and the
# SVGs rendered with go-graphviz); tools/graphs/diagrams tests the sources.
diagrams:
	$(GO) run ./tools/graphs -diagrams diagrams
