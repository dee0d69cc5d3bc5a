#!/usr/bin/env python3
"""derive's time against the size of the formula, for two builds side by side in one run.

Two families whose placement search once grew far faster than the formula:
  sum of n maxima:  sum(i = 1..n) max(t) dot(a[i], x[t])                     n = 8 .. 4096
  nested sums:      sum(i = 1..k) sum(j = 1..k) max(t) (dot(a[i], x[t]) + dot(b[j], x[t]))
                                                                             k = 2 .. 8
and a long k-th largest, kth(1024, t) dot(a, x[t]). Each formula runs as
`infoflow derive FORMULA --heads 1` (the plan on (1) and the search over the 4,680
architectures with L <= 4, h <= 8). Printed per row: wall and CPU seconds for each build, their
ratio, and whether the two printed the same answer (a row where the old build stopped at its
node cap prints a guess there, and "undecided" or the decided answer here).

Usage: bench/derive_scaling.py OLD_INFOFLOW NEW_INFOFLOW [--timeout SECONDS] [--quick]
"""

import argparse
import resource
import subprocess
import sys
import time


def run(binary, formula, timeout):
    """(wall seconds, CPU seconds, output) of one derive; output None past the timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        done = subprocess.run([binary, "derive", formula, "--heads", "1"], capture_output=True,
                              text=True, timeout=timeout, check=False)
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        output = None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, output


def answer(output):
    """The lines that state the answer: the plan's rate and verdict, the smallest architecture."""
    if output is None:
        return None
    keep = ("M = ", "smallest efficient", "no efficient", "fewest heads", "because")
    return [line.strip() for line in output.splitlines() if line.strip().startswith(keep)]


def brief(lines):
    """The plan's verdict on (1) and the smallest efficient architecture, in a few words."""
    verdict, smallest = "?", "none"
    for line in lines:
        if line.startswith("M = "):
            verdict = line.rsplit(": ", 1)[-1]
        elif line.startswith("smallest efficient architecture:"):
            smallest = line.split(": ", 1)[1][:60]
        elif line.startswith("smallest efficient"):
            smallest = line.split(" h=", 1)[1].split(" ", 1)[0]
    return f"(1) {verdict}, smallest {smallest}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--quick", action="store_true", help="fewer sizes")
    args = parser.parse_args()

    sums = [8, 16, 24, 32, 40, 64, 256, 1024, 4096]
    nested = [2, 3, 4, 5, 6, 7, 8]
    if args.quick:
        sums, nested = [8, 24, 40, 4096], [2, 4, 6]
    rows = [("sum of n maxima", n, f"sum(i = 1..{n}) max(t) dot(a[i], x[t])") for n in sums]
    rows += [("nested k x k sums", k,
              f"sum(i = 1..{k}) sum(j = 1..{k}) max(t) (dot(a[i], x[t]) + dot(b[j], x[t]))")
             for k in nested]
    rows.append(("k-th largest", 1024, "kth(1024, t) dot(a, x[t])"))

    def seconds(wall, output):
        return f">{args.timeout:.0f}" if output is None else f"{wall:.2f}"

    print(f"{'family':<18} {'n':>5} {'chars':>5} | {'old wall':>8} {'old cpu':>8} | "
          f"{'new wall':>8} {'new cpu':>8} | {'old/new':>7} | answer")
    for family, n, formula in rows:
        old_wall, old_cpu, old_out = run(args.old, formula, args.timeout)
        new_wall, new_cpu, new_out = run(args.new, formula, args.timeout)
        old_answer, new_answer = answer(old_out), answer(new_out)
        if new_answer is None:
            verdict = "new timed out"
        elif old_answer is None:
            verdict = "old timed out"
        elif old_answer == new_answer:
            verdict = "same"
        else:
            verdict = f"differs: old {brief(old_answer)}; new {brief(new_answer)}"
        ratio = (old_wall / new_wall) if new_wall > 0 else float("inf")
        print(f"{family:<18} {n:>5} {len(formula):>5} | {seconds(old_wall, old_out):>8} "
              f"{old_cpu:>8.2f} | {seconds(new_wall, new_out):>8} {new_cpu:>8.2f} | "
              f"{ratio:>7.1f} | {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
