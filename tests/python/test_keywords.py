"""Every keyword of the Python module against the same option of the command, with the bad values
of issue 43's campaign (negative, zero, 2**64, NaN, infinities, malformed text, a directory where
a file is written): both front ends go through one validation (session/), so a value the command
refuses with exit 2 raises infoflow.InputError carrying the command's message, and a value it
takes, Python takes too. Run by CTest as python.keywords; exits 77 (skipped) without numpy."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy  # noqa: F401  (train() returns numpy arrays)
except ImportError as e:
    print(f"skipped: the keywords' test needs numpy ({e}); apt-get install python3-numpy")
    sys.exit(77)

import infoflow

BINARY = os.environ["INFOFLOW_BINARY"]
FORMULA = "max(t) dot(a, x[t])"
BIG = 2**64  # beyond every C++ integer the options are read into
BAD_INTS = (-1, 0, BIG)
BAD_NUMBERS = (-1.0, 0.0, math.nan, math.inf, -math.inf)


def option_text(value):
    """A keyword's value as the command line writes it."""
    if isinstance(value, bool):
        return None  # a flag: present or absent
    if isinstance(value, (list, tuple)):
        return ",".join(option_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def options(keywords, names=None):
    """The command's options for `keywords`: --key VALUE ('_' as '-'), --set K=V, flags."""
    args = []
    for key, value in keywords.items():
        option = (names or {}).get(key, "--" + key.replace("_", "-"))
        if key == "set":
            for k, v in value.items():
                args += ["--set", f"{k}={v}"]
        elif isinstance(value, bool):
            if value:
                args.append(option)
        else:
            args += [option, option_text(value)]
    return args


class Keywords(unittest.TestCase):
    def agree(self, call, command, what):
        """`call()` raises InputError with the message the command prints (exit 2), or both
        succeed."""
        p = subprocess.run([BINARY, *command], capture_output=True, text=True)
        try:
            call()
        except infoflow.InputError as e:
            self.assertEqual(p.returncode, 2, f"{what}: Python refused ({e}), the command did not")
            self.assertIn(e.message, p.stderr, f"{what}: not the command's message")
            return
        except Exception as e:  # noqa: BLE001  (any other class is the finding)
            self.fail(f"{what}: {type(e).__name__} ({e}), the command said: {p.stderr.strip()}")
        self.assertEqual(p.returncode, 0, f"{what}: Python took it, the command said "
                                          f"{p.stderr.strip()}")

    def drive(self, function, command, base, bad, names=None, **extra):
        """Each bad value of each keyword, on top of `base`, through both front ends."""
        for key, values in bad.items():
            for value in values:
                keywords = dict(base, **{key: value})
                with self.subTest(function=function.__name__, key=key, value=value):
                    self.agree(lambda: function(**extra, **keywords),
                               command + options(keywords, names), f"{key}={value!r}")

    # -- the engine: derive, plan, construct

    TARGET_AND_ARCHITECTURE = {
        "heads": ([0], [-1], [BIG], [300], [3], [], "2,x"),
        "E": BAD_INTS,
        "head_dim": (-1, BIG),
        "d": BAD_INTS,
        "set": ({"T": 0}, {"T": -1}, {"T": BIG}),
        "pe": ("bogus",),
        "name": ("a b",),
    }

    def test_derive_and_plan(self):
        # d = -1 and d = 0 once silently used d = 4; heads = [2**64] raised a bare RuntimeError.
        for function in (infoflow.derive, infoflow.plan):
            name = function.__name__
            self.drive(lambda **k: function(FORMULA, format="text", **k), [name, FORMULA],
                       {"heads": [1]}, self.TARGET_AND_ARCHITECTURE)

    def test_construct(self):
        bad = dict(self.TARGET_AND_ARCHITECTURE, beta=BAD_NUMBERS, ffn_width=BAD_INTS,
                   readout_width=(-1, BIG), encoder_width=(-1, 2, BIG),
                   mask_features=(0, 1, BIG), samples=BAD_INTS, seed=(-1, BIG),
                   task_seed=(-1, BIG))
        self.drive(lambda **k: infoflow.construct(FORMULA, format="text", **k),
                   ["construct", FORMULA], {"heads": [1], "samples": 16}, bad)

    def test_construct_sweep(self):
        self.drive(lambda **k: infoflow.construct_sweep(FORMULA, **k),
                   ["construct", FORMULA, "--sweep"], {"heads": [1], "samples": 16},
                   {"betas": ([-1.0], [math.nan]), "widths": ([0], [BIG]),
                    "Ts": ([0], [-1], [BIG])})

    # -- training: every run setting

    def test_train(self):
        base = dict(task="min_inner", T=4, heads=[1], E=4, steps=1, batch=4, val_size=8,
                    threads=1)
        values = {"integer": BAD_INTS, "seed": (-1, BIG), "number": BAD_NUMBERS,
                  "heads": ([0], [BIG], [300], []), "text": ("bogus",), "flag": ()}
        with tempfile.TemporaryDirectory() as tmp:
            a_file = os.path.join(tmp, "file")
            open(a_file, "w").close()
            bad = {s["name"]: values[s["type"]] for s in infoflow.run_settings()}
            # Where a checkpoint cannot be written: once infoflow.Error, the class of the tool's
            # bugs (a directory: exit 3 from the command).
            bad["checkpoint"] = (tmp, os.path.join(a_file, "run.ckpt"), tmp + "/")
            bad["pe"] = ("bogus",)
            self.drive(infoflow.train, ["train"], base, bad)

    # -- experiments: sweep, the budget, check

    def test_sweep(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = {"results": tmp}
            bad = {"workers": (-1, BIG, 2000), "checkpoint_every": (-1, BIG),
                   "shard": ("3/2", "x"), "where": (["T"],), "profile": ("nonexistent",)}
            # Every value is checked before the experiment is looked for: none is found.
            self.drive(lambda **k: infoflow.sweep(["no_such_experiment"], **k),
                       ["sweep", "no_such_experiment"], base, bad)

    def test_budget(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = {"budget": ("1e9", "90", "0x10s", "1e-9s", "0s", "-5m"),
                   "workers": (-1, BIG)}
            self.drive(lambda **k: infoflow.spend_budget(["no_such_experiment"], **k),
                       ["verify", "no_such_experiment"], {"budget": "1m", "results": tmp}, bad)

    def test_check(self):
        self.drive(lambda **k: infoflow.check(**k), ["check"], {},
                   {"timeout_ms": (-1, 0, BIG)})


if __name__ == "__main__":
    unittest.main(verbosity=2)
