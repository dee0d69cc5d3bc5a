#!/bin/bash
# Fuzzes every input kind with libFuzzer, one after the other, for a bounded time each.
#
#   scripts/fuzz.sh [SECONDS_PER_KIND] [KIND...]     (default: 600 s; every kind)
#
# Builds build-fuzz with Clang (AddressSanitizer, UBSan, coverage; ccache if present), seeds
# each corpus from the shipped files and the kept regression inputs (tests/data/fuzz/KIND/),
# and runs the fuzzer under `nice` with the kind's dictionary (fuzz/dictionaries/KIND.dict: its
# grammar's tokens and the values that once broke it). An input that crashes, hangs (over 10 s)
# or ends in an error other than bad input (exit 2) is written to build-fuzz/findings/KIND/; keep
# it as a regression test by copying it to tests/data/fuzz/KIND/. A derive or plan input (the
# formula kind) of at most 200 characters that took over 1 s under the sanitizers, or hung, is
# timed again by fuzz_replay of the release build (RELEASE_BUILD, default build): over 5 s there
# is a slow finding (fuzz/inputs.hpp), listed in build-fuzz/slow_KIND.log. The last line per
# kind gives the counts of this run: inputs executed, crashes, hangs, slow findings.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(rate formula catalogue targets experiment results)
build=build-fuzz  # not build/fuzz: that is the main build's folder for fuzz/
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DINFOFLOW_FUZZ=ON -DINFOFLOW_BUILD_TESTS=OFF -DINFOFLOW_BUILD_BENCH=OFF \
  "${launcher[@]}" > /dev/null
nice cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' "${kinds[@]}")
release=${RELEASE_BUILD:-build}
cmake -S . -B "$release" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
nice cmake --build "$release" -j2 --target fuzz_replay

# Seeds: the shipped inputs of each kind.
seed() {
  local kind=$1 dir=$build/corpus/$1
  mkdir -p "$dir"
  case $kind in
    rate) grep -ho '^\(rate\|hypotheses\|constraints\|depth\|heads\) = .*' theorems/catalogue/*.toml |
            grep -o '"[^"]*"' | tr -d '"' | split -l 1 - "$dir/shipped-" ;;
    formula) grep -ho 'formula = ".*"' targets/targets.toml experiments/*.toml |
               sed 's/^formula = "//; s/"$//' | split -l 1 - "$dir/shipped-" ;;
    catalogue) cp theorems/catalogue/*.toml "$dir/" ;;
    targets) cp targets/targets.toml "$dir/" ;;
    experiment) cp experiments/*.toml "$dir/" ;;
    results) for f in experiments/results/*/*.jsonl experiments/archive/*/*/*.jsonl; do
               [ -f "$f" ] && head -n 2 "$f" > "$dir/$(echo "$f" | tr / _)"; done ;;
  esac
  if [ -d "tests/data/fuzz/$kind" ]; then cp tests/data/fuzz/"$kind"/* "$dir/" 2> /dev/null || true; fi
}

for kind in "${kinds[@]}"; do
  seed "$kind"
  findings=$build/findings/$kind
  mkdir -p "$findings"
  log=$build/fuzz_$kind.log
  started=$build/started_$kind  # findings of earlier runs stay in the folder but are not counted
  touch "$started"
  # -fork keeps going past a finding, so that one run counts them all. Leaks are not findings:
  # CLN and GiNaC keep global caches that LeakSanitizer reports at exit.
  # Results files are read as a whole: room for the kept records nested 100,000 levels deep.
  max_len=8192
  [ "$kind" = results ] && max_len=262144
  set +e
  ASAN_OPTIONS=detect_leaks=0 INFOFLOW_FUZZ_SLOW="$findings" nice "$build/fuzz/fuzz_$kind" -fork=1 -ignore_crashes=1 \
    -ignore_timeouts=1 -ignore_ooms=1 -print_funcs=0 -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len="$max_len" -dict="fuzz/dictionaries/$kind.dict" \
    -artifact_prefix="$findings/" "$build/corpus/$kind" \
    > "$log" 2>&1
  set -e
  # Inputs executed: the last status line, "#EXECS: cov: ..."; findings: the files written.
  execs=$(grep -E '^#[0-9]+: cov' "$log" | tail -1 | sed -E 's/^#([0-9]+):.*/\1/')
  crashes=$(find "$findings" -newer "$started" \( -name 'crash-*' -o -name 'oom-*' \) | wc -l)
  hangs=$(find "$findings" -newer "$started" -name 'timeout-*' | wc -l)
  # The slow candidates, timed on the release build one at a time (two minutes at most each).
  slow_log=$build/slow_$kind.log
  : > "$slow_log"
  while IFS= read -r -d '' input; do
    timeout 120 nice "$release/fuzz/fuzz_replay" "$kind" "$input" | head -n 1 >> "$slow_log" ||
      echo "$input: over 120 s; finding: slow" >> "$slow_log"
  done < <(find "$findings" -newer "$started" \( -name 'slow-*' -o -name 'timeout-*' \) -print0)
  slow=$(grep -c 'finding: slow' "$slow_log" || true)
  echo "$kind: $seconds s, ${execs:-0} inputs, $crashes crashes, $hangs hangs, $slow slow" \
    "(findings in $findings, log $log, slow inputs timed in $slow_log)"
done
