# The two commands of the README:
#   make run    installs what is missing (as root), builds, runs the main job on defaults
#   make test   installs what is missing (as root), builds, runs the whole test suite
BUILD ?= build
JOBS  ?= $(shell nproc)
OUT   ?= out

.PHONY: run test build deps bench clean

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: check the shipped catalogue and write its tables. `check` exits 1 when it
# finds errors in the catalogue (the shipped one has one, on purpose: see the README).
run: build
	@mkdir -p $(OUT)
	@$(BUILD)/app/infoflow check -o $(OUT)/check.txt; rc=$$?; cat $(OUT)/check.txt; \
	  [ $$rc -le 1 ] || exit $$rc
	@$(BUILD)/app/infoflow check --format json -o $(OUT)/check.json || [ $$? -eq 1 ]
	@$(BUILD)/app/infoflow table --of both --standalone -o $(OUT)/tables.tex
	@if command -v pdflatex >/dev/null; then \
	  (cd $(OUT) && pdflatex -interaction=nonstopmode -halt-on-error tables.tex >/dev/null \
	   && echo "wrote $(OUT)/tables.pdf"); fi
	@echo "wrote $(OUT)/check.txt $(OUT)/check.json $(OUT)/tables.tex"

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@bench/run.sh $(BUILD)
	@bench/train_step.sh $(BUILD)
	@$(BUILD)/bench/bench_derive targets/targets.toml theorems/catalogue

clean:
	rm -rf $(BUILD) $(OUT)
