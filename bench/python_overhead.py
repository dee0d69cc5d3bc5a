"""The Python module's overhead on `derive`: every target of the engine's table
(tests/data/engine_targets.toml, on its architecture `on`, n = 4, as test_engine_table plans
it) and of targets/targets.toml, derived by the command (one process per target, as a user runs
it) and through `infoflow.derive` in one interpreter (format "text": the same output, checked
equal; and format "data": the plain Python dicts a notebook uses). Median of REPS repetitions
per target; the ratio is Python's total over the command's.

Usage: python_overhead.py BUILD_DIR [REPS]   (PYTHONPATH=BUILD_DIR/python)
"""

import os
import statistics
import subprocess
import sys
import time
import tomllib

build = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(build, "python"))
import infoflow  # noqa: E402

binary = os.path.join(build, "app", "infoflow")
cases = []
with open(os.path.join(source, "tests", "data", "engine_targets.toml"), "rb") as f:
    for row in tomllib.load(f)["case"]:
        args = [row["formula"], "--heads", row["on"], "--head-dim", "4"]
        kwargs = dict(heads=row["on"], head_dim=4)
        if row.get("set"):
            for k, v in row["set"].items():
                args += ["--set", f"{k}={v}"]
            kwargs["set"] = dict(row["set"])
        if row.get("pe"):
            args += ["--pe", "learned"]
            kwargs["pe"] = "learned"
        cases.append((row["formula"], args, kwargs))
targets_file = os.path.join(source, "targets", "targets.toml")
with open(targets_file, "rb") as f:
    for t in tomllib.load(f)["target"]:
        cases.append((t["name"], [targets_file, "--name", t["name"]], dict(name=t["name"])))


def median_time(call):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


cli_total = text_total = data_total = 0.0
for label, args, kwargs in cases:
    source_arg = args[0]
    out = subprocess.run([binary, "derive", *args], capture_output=True, text=True, check=True)
    text = infoflow.derive(source_arg, format="text", **kwargs)
    if text != out.stdout:
        sys.exit(f"{label}: the module's text differs from the command's")
    cli_total += median_time(lambda: subprocess.run([binary, "derive", *args],
                                                    capture_output=True, check=True))
    text_total += median_time(lambda: infoflow.derive(source_arg, format="text", **kwargs))
    data_total += median_time(lambda: infoflow.derive(source_arg, **kwargs))
startup = median_time(lambda: subprocess.run(
    [sys.executable, "-c", "import infoflow"], check=True,
    env=dict(os.environ, PYTHONPATH=os.path.join(build, "python"))))
# The command's fixed cost per process (start, GiNaC's and the registry's initialisation),
# which a notebook pays once: `infoflow symbols` does no other work.
fixed = median_time(lambda: subprocess.run([binary, "symbols"], capture_output=True, check=True))
print(f"derive on {len(cases)} targets ({len(cases) - 6} of the engine's table, 6 of "
      f"targets.toml), median of {reps} each, totals:")
print(f"  infoflow derive (one process a target)   {cli_total:7.3f} s")
print(f"  infoflow.derive(format='text')           {text_total:7.3f} s   ratio {text_total / cli_total:.3f}")
print(f"  infoflow.derive() -> Python dicts        {data_total:7.3f} s   ratio {data_total / cli_total:.3f}")
print(f"  (the command's start, `infoflow symbols`: {fixed:.3f} s a process, {fixed * len(cases):.3f} s "
      f"in all; python3 -c 'import infoflow': {startup:.3f} s, once a session)")
fresh = text_total + startup * len(cases)
print(f"  a fresh interpreter per target (not how a notebook works): {fresh:.3f} s, "
      f"ratio {fresh / cli_total:.3f}")
worst = max(text_total, data_total) / cli_total
print(f"overhead within 10 %: {'yes' if worst <= 1.10 else 'NO'} (worst ratio {worst:.3f})")
sys.exit(0 if worst <= 1.10 else 1)
