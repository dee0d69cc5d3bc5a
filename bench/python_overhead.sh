#!/usr/bin/env bash
# The Python module's overhead on derive (bench/python_overhead.py). Usage: python_overhead.sh [BUILD_DIR] [REPS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
if ! ls "$build"/python/infoflow/_infoflow*.so >/dev/null 2>&1; then
  echo "python_overhead: no Python module in $build (needs pybind11-dev, python3-numpy): skipped"
  exit 0
fi
python=$(sed -n 's/^Python_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
PYTHONPATH="$build/python" "${python:-python3}" "$(dirname "$0")/python_overhead.py" "$build" "${2:-5}"
