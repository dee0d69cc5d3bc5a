#!/usr/bin/env bash
# A training step on each built-in task against the same target written as a formula (issue 12),
# one thread, heads (2,2), E = 16, batch 64, data included: best of 9 runs of 10 steps (3 rounds
# over the variants); and drawing one batch's data alone (best of 150), where the two differ.
# Usage: bench/task_step.sh [BUILD_DIR [OLD_BUILD_DIR]]
# OLD_BUILD_DIR: a build of an earlier commit (e.g. 9a4ca5d, the hand-written tasks and the
# tree-walking evaluator) with bench_task_step.cpp copied in; its columns are then added.
set -euo pipefail
build=${1:-build}
old=${2:-}
targets=(
  "min_inner|min(s != t) dot(x[s], x[t])|4|8 32 64"
  "intrinsic_dim|sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])|4|8 32 64"
  "d_retrieval|sum(i = 1..D) max(t) dot(a[i], x[t])|4|8 32 64"
  "kth_max|kth(k, t by dot(a, x[t])) dot(b, x[t])|4|8 32 64"
  "fixed_positions|sqnorm(sum(p = 1..T0) x[p])|4|8 32 64"
  "triangle|min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])|2|8 16 32"
)
one() {  # binary-dir kind what T d: one run's JSON
  "$1/bench/bench_task_step" "$2" "$3" "$4" 10 3 "$5"
}
best() {  # JSON lines: "step_ms batch_ms", each the best
  python3 -c "import json, sys; r = [json.loads(l) for l in sys.stdin if l.strip()]; \
print(min(x['ms_per_step'] for x in r), min(x['ms_per_batch'] for x in r))"
}
if [ -n "$old" ]; then
  echo "| target | T | step: hand-written | step: tree walk | step: formula now | ratio | data: hand-written | data: tree walk | data: built-in now | data: formula now | ratio |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| target | T | step: built-in task | step: formula | ratio | data: built-in task | data: formula | ratio |"
  echo "|---|---|---|---|---|---|---|---|"
fi
for entry in "${targets[@]}"; do
  IFS='|' read -r name formula d ts <<<"$entry"
  for t in $ts; do
    a="" b="" c="" e=""
    for _ in 1 2 3; do  # rounds over the variants, so that a burst of load hits them all
      a+=$(one "$build" --task "$name" "$t" "$d")$'\n'
      b+=$(one "$build" --formula "$formula" "$t" "$d")$'\n'
      if [ -n "$old" ]; then
        c+=$(one "$old" --task "$name" "$t" "$d")$'\n'
        e+=$(one "$old" --formula "$formula" "$t" "$d")$'\n'
      fi
    done
    read -r task_step task_data <<<"$(best <<<"$a")"
    read -r form_step form_data <<<"$(best <<<"$b")"
    if [ -n "$old" ]; then
      read -r old_step old_data <<<"$(best <<<"$c")"
      read -r walk_step walk_data <<<"$(best <<<"$e")"
      python3 -c "print(f'| $name | $t | {$old_step:.2f} ms | {$walk_step:.2f} ms | {$form_step:.2f} ms | {$form_step / $old_step:.2f} | {$old_data:.3f} ms | {$walk_data:.3f} ms | {$task_data:.3f} ms | {$form_data:.3f} ms | {$form_data / $old_data:.2f} |')"
    else
      python3 -c "print(f'| $name | $t | {$task_step:.2f} ms | {$form_step:.2f} ms | {$form_step / $task_step:.2f} | {$task_data:.3f} ms | {$form_data:.3f} ms | {$form_data / $task_data:.2f} |')"
    fi
  done
done
