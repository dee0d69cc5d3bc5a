# The two commands of the README:
#   make run    installs what is missing (as root), builds the command, runs the main job on defaults
#   make test   installs what is missing (as root), builds everything, runs the whole test suite
BUILD ?= build
JOBS  ?= $(shell nproc)
OUT   ?= out
# Wall time the main job may spend after the quick profile's sweep (its own time is in
# docs/results.md, "The main job"),
# training where a claim is undecided (docs/experiments.md, "A time budget"); 0 for none.
# With the sweep's 9 minutes on 2 cores and a run in progress finished past it, under 15
# minutes of training in all.
BUDGET ?= 5m

.PHONY: run test test-slurm build build-command configure deps deps-slurm bench install clean

deps:
	@scripts/install-deps.sh

deps-slurm: deps
	@scripts/install-deps.sh slurm

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

# Everything: the command, the libraries, the Python module, the tests and the benchmarks.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Only the command `infoflow` and the libraries under it: what `make run` and `make test-slurm`
# execute, without the test programs and benchmarks that `make build` adds.
build-command: configure
	@cmake --build $(BUILD) -j $(JOBS) --target infoflow

# The main job: every shipped experiment's quick profile (sweeps resume from $(OUT)/results),
# then $(BUDGET) of training where claims are undecided, prediction against measurement, and the report folder $(OUT)/report (PDF, figures, CSV); then
# the catalogue check. `check` exits 1 when it finds errors in the catalogue (the shipped one has
# one, on purpose: see the README), which is a finding, not a failure of the job.
run: build-command
	@mkdir -p $(OUT)
	@$(BUILD)/app/infoflow report --profile quick --results $(OUT)/results -o $(OUT)/report \
	  $(if $(filter 0,$(BUDGET)),,--budget $(BUDGET))
	@$(BUILD)/app/infoflow check -o $(OUT)/check.txt; rc=$$?; [ $$rc -le 1 ] || exit $$rc
	@$(BUILD)/app/infoflow check --format json -o $(OUT)/check.json || [ $$? -eq 1 ]
	@$(BUILD)/app/infoflow table --of both --standalone -o $(OUT)/tables.tex
	@echo "wrote $(OUT)/report/ (report.pdf, figures, CSV), $(OUT)/check.txt, $(OUT)/check.json, $(OUT)/tables.tex"

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Not part of `make test`: starts a one-node SLURM cluster here (root; slurm-wlm and munge),
# runs the documented job array of a small sweep, kills and resubmits a task, merges, and
# compares with the same sweep run locally (scripts/test-slurm.sh; log in $(BUILD)/slurm-test.log).
# As root it installs slurm-wlm and munge first when they are missing.
test-slurm: deps-slurm build-command
	@scripts/test-slurm.sh $(BUILD)

# Libraries, headers, CMake package, command, catalogue, Python module under PREFIX.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	@bench/run.sh $(BUILD)
	@bench/train_step.sh $(BUILD)
	@$(BUILD)/bench/bench_derive targets/targets.toml tests/data/engine_targets.toml theorems/catalogue
	@bench/python_overhead.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(OUT)
