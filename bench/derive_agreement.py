#!/usr/bin/env python3
"""Whether two builds give the same answers: every row of the engine's table
(tests/data/engine_targets.toml) and every shipped target (targets/targets.toml), through
`derive` (JSON: the plan, the search, the smallest efficient architecture) and `plan` (text,
layer by layer), with both builds in one run. A change to the engine that is meant only to make
it faster must leave every output byte for byte as it was.

Usage: bench/derive_agreement.py OLD_INFOFLOW NEW_INFOFLOW [REPOSITORY]
"""

import difflib
import subprocess
import sys
import time
import tomllib
from pathlib import Path


def commands(root):
    """(label, arguments) for every output compared."""
    out = []
    table = tomllib.loads((root / "tests/data/engine_targets.toml").read_text())
    for number, row in enumerate(table["case"], 1):
        # As tests/theorems/test_engine_table.cpp plans them: E = 16, d = 4, n = 4.
        common = [row["formula"], "--heads", row["on"], "--head-dim", "4",
                  "--pe", "learned" if row.get("pe", False) else "none"]
        for name, value in row.get("set", {}).items():
            common += ["--set", f"{name}={value}"]
        label = f"row {number}: {row['formula']} on ({row['on']})"
        out.append((label + " derive", ["derive", *common, "--format", "json"]))
        out.append((label + " plan", ["plan", *common]))
    targets = root / "targets/targets.toml"
    for target in tomllib.loads(targets.read_text())["target"]:
        name = target["name"]
        out.append((f"target {name} derive", ["derive", str(targets), "--name", name,
                                              "--format", "json"]))
        for heads in target.get("architectures", []):
            out.append((f"target {name} plan on ({heads})",
                        ["plan", str(targets), "--name", name, "--heads", heads]))
    return out


def run(binary, arguments):
    done = subprocess.run([binary, *arguments], capture_output=True, text=True, check=False)
    return f"exit {done.returncode}\n{done.stdout}{done.stderr}"


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    old, new = sys.argv[1], sys.argv[2]
    root = Path(sys.argv[3]) if len(sys.argv) == 4 else Path(__file__).resolve().parent.parent
    spent = {old: 0.0, new: 0.0}
    differ = []
    cases = commands(root)
    for label, arguments in cases:
        outputs = {}
        for binary in (old, new):
            start = time.monotonic()
            outputs[binary] = run(binary, arguments)
            spent[binary] += time.monotonic() - start
        if outputs[old] != outputs[new]:
            differ.append(label)
            diff = difflib.unified_diff(outputs[old].splitlines(), outputs[new].splitlines(),
                                        "old", "new", lineterm="", n=1)
            print(f"DIFFERS: {label}\n" + "\n".join(list(diff)[:20]), flush=True)
    print(f"{len(cases)} outputs compared ({len(cases) - len(differ)} identical, "
          f"{len(differ)} differ); wall time: old {spent[old]:.1f} s, new {spent[new]:.1f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
