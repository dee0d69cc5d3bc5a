#!/usr/bin/env bash
# A training step of infoflow against the same step in PyTorch, in the same run (issue 3's two
# configurations). Usage: bench/train_step.sh [BUILD_DIR]   (after `make build`)
# Needs Debian's python3-torch and libopenblas0-pthread; installs them when run as root.
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || ! dpkg -s libopenblas0-pthread >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3-torch libopenblas0-pthread >/dev/null
  else
    echo "train_step.sh: needs python3-torch and libopenblas0-pthread" >&2; exit 1
  fi
fi
echo "BLAS behind PyTorch: $(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu)"
run() {  # name T d E heads W R batch steps
  local name=$1; shift
  local ours theirs
  ours=$("$build/bench/bench_train_step" "$@")
  theirs=$(/usr/bin/python3 "$here/torch_train_step.py" "$@" "$(( $8 > 10 ? 10 : $8 ))" 2>/dev/null | tail -1)
  /usr/bin/python3 - "$name" "$ours" "$theirs" <<'PY'
import json, sys
name, ours, theirs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
print(f"{name}: infoflow {ours['ms_per_step']:.1f} ms/step ({ours['threads']} threads, data included), "
      f"PyTorch {theirs['ms_per_step']:.1f} ms/step ({theirs['best_threads']} thread(s), best of 1 and 2): "
      f"{theirs['ms_per_step'] / ours['ms_per_step']:.2f}x faster")
gemm = ours['gemm_gflops_2'] if ours['threads'] > 1 else ours['gemm_gflops_1']
print(f"  step: {ours['gflop_model']:.3f} GFLOP (full model), {ours['gflop_computed']:.3f} GFLOP computed; "
      f"{ours['gflops_computed']:.1f} GFLOP/s computed ({100 * ours['gflops_computed'] / gemm:.1f} % of the GEMM rate), "
      f"{ours['gflops_model']:.1f} GFLOP/s model-equivalent; "
      f"float32 GEMM {ours['gemm_gflops_1']:.0f} GFLOP/s on 1 core, {ours['gemm_gflops_2']:.0f} on 2")
print(f"  peak memory: infoflow {ours['peak_rss_mib']:.0f} MiB, PyTorch {theirs['peak_rss_mib']:.0f} MiB")
PY
}
run "reference (T=64 d=4 E=32 heads 4,4 W=128 batch 256)" 64 4 32 4,4 128 128 256 30
run "second    (T=64 d=4 E=128 heads 4,4 W=512 batch 256)" 64 4 128 4,4 512 128 256 10
