"""The command and the Python module are two front ends over one workflow layer (session/):
for the same request they give the same output. compare's JSON; derive's text and plan's JSON
over a sample of the engine's table; construct's JSON; verify's JSON on shipped results;
train's JSON against train()'s dict; and the run settings' table against the command's options
and train()'s keywords. Run by CTest as python.front_ends (PYTHONPATH at the build tree's
package, INFOFLOW_BINARY the command); exits 77 (skipped) without numpy."""

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import unittest

try:
    import numpy  # noqa: F401  (train() returns numpy arrays)
except ImportError as e:
    print(f"skipped: the front ends' test needs numpy ({e}); apt-get install python3-numpy")
    sys.exit(77)

import infoflow

BINARY = os.environ["INFOFLOW_BINARY"]
SOURCE = os.environ["INFOFLOW_SOURCE_DIR"]


def cli(*args):
    p = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"infoflow {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def engine_cases(every=12):
    """Every `every`-th case of tests/data/engine_targets.toml as (command arguments, keywords),
    on its architecture with n = 4, as bench/python_overhead.py builds them."""
    with open(os.path.join(SOURCE, "tests", "data", "engine_targets.toml"), "rb") as f:
        rows = tomllib.load(f)["case"][::every]
    for row in rows:
        args = [row["formula"], "--heads", row["on"], "--head-dim", "4"]
        kwargs = dict(heads=row["on"], head_dim=4)
        for k, v in row.get("set", {}).items():
            args += ["--set", f"{k}={v}"]
            kwargs.setdefault("set", {})[k] = v
        if row.get("pe"):
            args += ["--pe", "learned"]
            kwargs["pe"] = "learned"
        yield row["formula"], args, kwargs


class Engine(unittest.TestCase):
    def test_compare_json_is_the_commands(self):
        for first, second, assume in (("eps^(1 - T*d/E)", "eps^(-T/E)", []),
                                      ("O(eps^(-T/(n+1)))", "Omega(eps^(-T/(n+2)))", ["n >= 1"])):
            args = [a for r in assume for a in ("--assume", r)]
            self.assertEqual(infoflow.compare(first, second, assume=assume),
                             json.loads(cli("compare", first, second, *args, "--format", "json")))

    def test_derive_text_is_the_commands(self):
        for formula, args, kwargs in engine_cases():
            with self.subTest(formula=formula):
                self.assertEqual(infoflow.derive(args[0], format="text", **kwargs),
                                 cli("derive", *args))

    def test_plan_json_is_the_commands(self):
        for formula, args, kwargs in engine_cases():
            with self.subTest(formula=formula):
                command = json.loads(cli("plan", *args, "--format", "json"))
                self.assertEqual(json.loads(infoflow.plan(args[0], format="json", **kwargs)),
                                 command)
                data = infoflow.plan(args[0], **kwargs)  # the command's keys, and more
                self.assertEqual({k: data[k] for k in command}, command)

    def test_construct_json_is_the_commands(self):
        f = "max(t) dot(a, x[t])"
        command = json.loads(cli("construct", f, "--heads", "1", "--samples", "256",
                                 "--format", "json"))
        data = infoflow.construct(f, heads=[1], samples=256)
        for d in (command, data):
            del d["seconds"]  # the one field that is not the same twice
        self.assertEqual(data, command)

    @unittest.skipUnless(importlib.util.find_spec("pandas"), "construct_sweep needs pandas")
    def test_construct_sweep_is_the_commands(self):
        f = "max(t) dot(a, x[t])"
        command = json.loads(cli("construct", f, "--heads", "1", "--samples", "256", "--sweep",
                                 "--Ts", "4,8,16", "--format", "json"))
        data = infoflow.construct_sweep(f, heads=[1], samples=256, Ts=[4, 8, 16])
        self.assertEqual(data["fit"], command["fit"])
        self.assertEqual(data["no_fit"], command["no_fit"])
        self.assertEqual(list(data["points"]["T"]), [4, 8, 16])
        self.assertEqual(list(data["points"]["nmse"]), [p["nmse"] for p in command["points"]])


class Experiments(unittest.TestCase):
    def test_verify_json_is_the_commands(self):
        results = os.path.join(SOURCE, "experiments", "archive", "numeric-3", "engine-quick")
        command = json.loads(cli("verify", "head_capacity", "engine_mean", "--profile", "quick",
                                 "--results", results, "--format", "json"))
        data = infoflow.verify(["head_capacity", "engine_mean"], profile="quick",
                               results=results)
        self.assertEqual(len(data), len(command))
        for d, c in zip(data, command):
            self.assertEqual({k: d[k] for k in c}, c)


class Training(unittest.TestCase):
    def test_train_json_is_the_commands(self):
        args = ["--task", "kth_max", "--T", "6", "--k", "2", "--heads", "2,1", "--E", "8",
                "--steps", "30", "--batch", "16", "--val-size", "32", "--lr", "0.002",
                "--scale", "0.5", "--pe", "learned", "--seed", "4", "--threads", "1"]
        command = json.loads(cli("train", *args, "--format", "json"))
        r = infoflow.train("kth_max", T=6, k=2, heads=[2, 1], E=8, steps=30, batch=16,
                           val_size=32, lr=0.002, scale=0.5, pe="learned", seed=4, threads=1)
        for key in ("task", "model", "training", "parameters"):
            self.assertEqual(r[key], command[key], key)
        for key, value in command["result"].items():
            self.assertEqual(r["result"][key], value, key)
        self.assertEqual(r["curve"]["validation_nmse"].tolist(),
                         [p["validation_nmse"] for p in command["curve"]])
        # One vocabulary: the names the run's key and a spec use.
        self.assertEqual(command["model"]["pe"], "learned")
        self.assertEqual(command["training"]["val_size"], 32)

    def test_the_old_names_still_read(self):
        new = infoflow.train("intrinsic_dim", T=4, heads=[1], E=4, steps=4, batch=4,
                             val_size=8, lr=0.002, scale=0.5)
        old = infoflow.train("intrinsic_dim", T=4, heads=[1], E=4, steps=4, batch=4,
                             validation_size=8, learning_rate=0.002, attention_scale=0.5)
        self.assertEqual(old["training"], new["training"])
        self.assertEqual(old["result"]["best_validation_nmse"],
                         new["result"]["best_validation_nmse"])


class Vocabulary(unittest.TestCase):
    def test_every_setting_is_an_option_and_a_keyword(self):
        settings = infoflow.run_settings()
        help_text = cli("train", "--help")
        for s in settings:
            self.assertIn(s["option"], help_text, s["name"])
        # Every keyword train() takes is a setting: each at its default, in one short run.
        defaults = {s["name"]: s["default"] for s in settings if s["default"] is not None}
        defaults.update(steps=2, batch=4, val_size=8, T=4, E=4, heads=[1])
        r = infoflow.train("intrinsic_dim", **defaults)
        self.assertEqual(r["training"]["steps"], 2)
        with self.assertRaises(TypeError):
            infoflow.train("intrinsic_dim", val_sise=8)


if __name__ == "__main__":
    unittest.main(verbosity=2)
