#!/usr/bin/python3
"""SymPy peer of bench_check: the same upper/lower rate pairs, compared as eps -> 0+ by
limit(first/second, eps, 0, '+') with every parameter declared positive (SymPy has no way to
state the hypotheses such as s < D). Counts a comparison as decided when the limit is 0, oo or
a positive finite number. Usage: sympy_peer.py PAIRS_FILE [TIMEOUT_SECONDS_PER_PAIR]"""
import signal
import sys
import time

import sympy

names = "eps T T0 L h E n s d k D gamma c c0"
symbols = {str(s): s for s in sympy.symbols(names, positive=True)}


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def main():
    path = sys.argv[1]
    per_pair = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    signal.signal(signal.SIGALRM, on_alarm)
    decided = failed = timed_out = 0
    start = time.monotonic()
    with open(path) as f:
        pairs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for first, second in pairs:
        a = sympy.sympify(first.replace("^", "**"), locals=symbols)
        b = sympy.sympify(second.replace("^", "**"), locals=symbols)
        signal.alarm(per_pair)
        try:
            value = sympy.limit(a / b, symbols["eps"], 0, "+")
            if value.is_number and (value == sympy.oo or value.is_nonnegative):
                decided += 1
            else:
                failed += 1
        except Timeout:
            timed_out += 1
        except Exception:  # NotImplementedError: "Not sure of sign of ..." and the like
            failed += 1
        finally:
            signal.alarm(0)
    elapsed = time.monotonic() - start
    print(f"sympy {sympy.__version__}: {len(pairs)} pairs in {elapsed:.2f} s: {decided} decided, "
          f"{failed} failed, {timed_out} timed out (> {per_pair} s)")


if __name__ == "__main__":
    main()
