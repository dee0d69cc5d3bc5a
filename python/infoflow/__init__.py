"""infoflow: approximation bounds for Transformers, derived, compared, checked and trained.

The same C++ core as the ``infoflow`` command (no second implementation): what the command
prints as JSON arrives here as plain Python data (dicts, lists, str, int, float), learning
curves as numpy arrays, results files as pandas DataFrames; every function that has a text,
LaTeX or JSON form in the command takes ``format=`` and then returns the command's text.

The loop of a theorist, in a notebook::

    import infoflow
    d = infoflow.derive("max(s, t) bilinear(A, x[s], x[t])", heads=[1])
    d["smallest_rate"]["heads"], d["plan_rate"]["rate_latex"]   # smallest efficient; its rate
    infoflow.compare("eps^(1 - T*d/E)", "eps^(-T/E)")    # condition and witnesses
    r = infoflow.train(formula="max(t) dot(a, x[t])", T=8, heads=[1], steps=300)
    r["curve"]["validation_nmse"]                         # numpy array
    infoflow.read_results("results/intrinsic_dim.jsonl")  # pandas DataFrame

Functions: symbols, tasks, catalogue, parse_rate, compare, check, table, derive, plan, train,
sweep, merge, read_results, verify, latex_document.

Errors: bad input raises :class:`InputError` (a ``ValueError``) whose ``str()`` is the command's
exit-2 message, ``file:line:column: error: ...``, with ``message``, ``file``, ``line`` and
``column`` as attributes; an argument of the wrong type raises ``TypeError``. Training and
sweeps release the GIL (other Python threads run meanwhile); Ctrl-C stops a ``train``.

Defaults: the shipped catalogue (or ``$INFOFLOW_CATALOGUE``) and the shipped experiments (or
``$INFOFLOW_EXPERIMENTS``), as for the command.
"""

import os as _os
import warnings as _warnings

from . import _infoflow, _paths
from ._infoflow import Error, InputError

__version__ = _infoflow.__version__
#: The version of the numeric core that keys results files (runs of other versions are kept
#: apart).
code_version = _infoflow.code_version

__all__ = [
    "Error", "InputError", "symbols", "tasks", "catalogue", "parse_rate", "compare", "check",
    "table", "derive", "plan", "construct", "construct_sweep", "train", "run_settings", "sweep", "merge",
    "read_results", "verify", "spend_budget", "latex_document", "default_catalogue", "default_experiments",
]


def _shipped(path):
    if _paths.RELATIVE:
        return _os.path.normpath(_os.path.join(_os.path.dirname(__file__), path))
    return path


def default_catalogue():
    """The catalogue directory used when none is given: $INFOFLOW_CATALOGUE, else the shipped one."""
    return _os.environ.get("INFOFLOW_CATALOGUE") or _shipped(_paths.CATALOGUE)


def default_experiments():
    """The folder of shipped experiments: $INFOFLOW_EXPERIMENTS, else the shipped one."""
    return _os.environ.get("INFOFLOW_EXPERIMENTS") or _shipped(_paths.EXPERIMENTS)


def _path(value, what):
    if value is None:
        return None
    if isinstance(value, (str, _os.PathLike)):
        return _os.fspath(value)
    raise TypeError(f"{what} must be a path (str or os.PathLike), got {type(value).__name__} "
                    f"{value!r}")


def _paths_list(value, what):
    if value is None:
        return []
    if isinstance(value, (str, _os.PathLike)):
        return [_os.fspath(value)]
    if isinstance(value, (list, tuple)):
        return [_path(v, what) for v in value]
    raise TypeError(f"{what} must be a path or a list of paths, got {type(value).__name__}")


def _strings(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"{what} must be a str or a list of str, got {value!r}")


def _text(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__} {value!r}")
    return value


def _catalogue_args(catalogue, add):
    directory = _path(catalogue, "catalogue") or default_catalogue()
    return directory, _paths_list(add, "add")


def symbols():
    """The symbols rates and relations may use: a list of dicts with name, latex, meaning,
    integer, lower, lower_strict and upper (as ``infoflow symbols``)."""
    return _infoflow.symbols()


def tasks():
    """The names of the built-in training tasks (``train(task=...)``)."""
    return list(_infoflow.tasks())


def catalogue(catalogue=None, add=None, format="data"):
    """The catalogue's entries (as ``infoflow list``).

    catalogue: a catalogue directory (default: the shipped one); add: catalogue files read
    beside it (e.g. ``derive(..., format="toml")`` written to a file).
    format: "data" (a dict with papers, tasks and entries, as ``list --format json``), "json",
    "text", or "latex" (the booktabs table of ``infoflow table``).
    """
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.catalogue(directory, added, _text(format, "format"))


def parse_rate(rate):
    """A rate in the normal form C (1/eps)^a log(1/eps)^b T^p exp(g T).

    Returns a dict: text and latex (the deterministic printer's), eps_exponent, log_exponent,
    power_of_T, exp_rate_in_T and coefficient (as text). Raises InputError for a rate that does
    not parse, with its column.
    """
    return _infoflow.parse_rate(_text(rate, "rate"))


def compare(first, second, assume=None):
    """Two rates as eps -> 0 and as T -> infinity (``infoflow compare --json``).

    assume: relations on the parameters, e.g. ``["k >= 2", "T > k + 1"]``.
    Returns a dict: first, second (and their LaTeX), eps_to_zero and T_to_infinity, each with
    growth ("slower", "same", "faster", "depends", "unknown"), decided_by, gap (and LaTeX),
    summary, and where they exist faster_when (the condition, with its LaTeX), faster_at,
    slower_at, equal_at (witness points).
    """
    return _infoflow.compare(_text(first, "first"), _text(second, "second"),
                             _strings(assume, "assume"))


def check(catalogue=None, add=None, targets=None, timeout_ms=2000, format="data"):
    """The consistency check of a catalogue (``infoflow check``).

    targets: target files whose architectures' derived bounds join the catalogue
    (``check --targets``). format: "data" (a dict with findings, counts, errors and brief, as
    ``check --format json``), "json", "text" or "latex" (the booktabs table of the findings).
    The check runs with the GIL released.
    """
    directory, added = _catalogue_args(catalogue, add)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise TypeError(f"timeout_ms must be an int, got {timeout_ms!r}")
    return _infoflow.check(directory, added, _paths_list(targets, "targets"), timeout_ms,
                           _text(format, "format"))


def table(of="catalogue", standalone=False, catalogue=None, add=None):
    """Booktabs LaTeX tables (``infoflow table``): of "catalogue", "findings" or "both";
    standalone: a whole LaTeX document."""
    directory, added = _catalogue_args(catalogue, add)
    if not isinstance(standalone, bool):
        raise TypeError(f"standalone must be a bool, got {standalone!r}")
    return _infoflow.table(directory, added, _text(of, "of"), standalone)


def latex_document(body, catalogue=None, add=None):
    """A complete LaTeX document (booktabs, amsmath, longtable) around tables, with the
    bibliography of the catalogue's papers the body cites."""
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.latex_document(_text(body, "body"), directory, added)


def derive(target, *, heads=None, E=None, head_dim=0, set=None, d=None, pe=None, name=None,
           format="data", catalogue=None, add=None):
    """The InfoFlow engine on a target: comparison structure, plan, rate, verdict and the
    smallest efficient architecture (``infoflow derive``).

    target: a formula (``"min(s != t) dot(x[s], x[t])"``) or a target file (TOML), read by the
    command's own rules (docs/commands.md). name: one target of a file. set: values of the
    formula's integers, ``{"D": 3}``. d: token dimension; pe: "none", "learned" or "sinusoidal".
    heads: the architecture to plan on (``[2, 2]``, ``"2,2"`` or an int for one layer); without
    it only the search runs. E: embedding (None: the command's default); head_dim: n (0: E / h).

    format "data" returns, per target, the dict of ``derive --format json`` (target, formula,
    comparison_order, plan, smallest_efficient, ...) plus, ready for a paper, ``plan_rate``
    (the plan on ``heads``) and ``smallest_rate`` (the smallest efficient architecture's plan),
    each a dict of heads, verdict, priced and, for a priced plan, rate and rate_latex (the
    bound, ``O(...)``), eps_rate and eps_rate_latex (the rate alone, as :func:`compare` takes
    it), rate_general (with d, E and n symbolic), rate_general_latex and
    rate_general_condition; ``per_depth_rates`` (the same for each depth's fewest heads) and
    ``latex_row`` (this target's booktabs table). A file with several targets gives a list.
    With one integer unset (no ``set`` for D), the result is the condition on it per depth
    (conditions: closed_form, capacity, text).
    format "text", "latex", "json" or "toml" returns the command's output as a str.
    """
    options = dict(heads=heads, E=E, head_dim=head_dim, set=set, d=d, pe=pe, name=name)
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.derive(_path(target, "target"), directory, added, _text(format, "format"),
                            options)


def plan(target, *, heads=None, E=None, head_dim=0, set=None, d=None, pe=None, name=None,
         format="data", catalogue=None, add=None):
    """The engine's plan layer by layer (``infoflow plan``): which head does what, the
    information sets, the costs. Without heads: the smallest efficient architecture's plan.

    Arguments as for :func:`derive`. format "data": the dict of ``plan --json`` (steps,
    decodings, information_sets, rate, rate_latex, verdict, target, ...) plus heads,
    architecture_text, priced, eps_rate and eps_rate_latex (as for :func:`derive`). "text" or
    "json": the command's output.
    """
    options = dict(heads=heads, E=E, head_dim=head_dim, set=set, d=d, pe=pe, name=name)
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.plan(_path(target, "target"), directory, added, _text(format, "format"),
                          options)


def construct(target, *, heads, E=None, head_dim=0, set=None, d=None, pe=None, name=None,
              beta=None, ffn_width=None, readout_width=None, encoder_width=None,
              mask_features=None, samples=None, seed=None, task_seed=None, format="data",
              catalogue=None, add=None):
    """The engine's plan compiled into the weights of its architecture and measured on fresh
    inputs, no training (``infoflow construct``; docs/constructions.md). The GIL is released
    while it builds.

    Target and architecture as for :func:`derive` (heads required); beta (the attention
    scale), ffn_width, readout_width, encoder_width, mask_features, samples, seed and task_seed
    as the command's options, with its defaults.
    format "data": the dict of ``construct --format json`` (built, failure, nmse, parameters,
    stream, ...); "text" or "json": the command's output.
    """
    options = dict(heads=heads, E=E, head_dim=head_dim, set=set, d=d, pe=pe, name=name,
                   beta=beta, ffn_width=ffn_width, readout_width=readout_width,
                   encoder_width=encoder_width, mask_features=mask_features, samples=samples,
                   seed=seed, task_seed=task_seed)
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.construct(_path(target, "target"), directory, added,
                               _text(format, "format"), options)


def construct_sweep(target, *, heads, betas=None, widths=None, Ts=None, E=None, head_dim=0,
                    set=None, d=None, pe=None, name=None, beta=None, ffn_width=None, samples=None,
                    seed=None, task_seed=None, catalogue=None, add=None):
    """Every combination of ``betas``, ``widths`` and ``Ts`` built and measured (``infoflow
    construct --sweep``; docs/constructions.md). Returns a dict: ``points``, a pandas DataFrame
    with one row a construction (beta, ffn_width, T, built, nmse, parameters, knots, failure);
    ``fit``, the slope of log NMSE against log M (one T) or log T (one beta and width) with its
    bootstrap interval, or None; and ``no_fit``, why there is none.
    """
    import pandas as pd

    options = dict(heads=heads, E=E, head_dim=head_dim, set=set, d=d, pe=pe, name=name,
                   beta=beta, ffn_width=ffn_width, samples=samples, seed=seed,
                   task_seed=task_seed, betas=betas, widths=widths, Ts=Ts)
    directory, added = _catalogue_args(catalogue, add)
    data = _infoflow.construct_sweep(_path(target, "target"), directory, added, options)
    columns = ["beta", "ffn_width", "T", "built", "nmse", "parameters", "knots", "failure"]
    rows = [[p["beta"], p["ffn_width"], p["architecture"]["T"], p["built"], p["nmse"],
             p["parameters"], p["knots"], p["failure"]] for p in data["points"]]
    data["points"] = pd.DataFrame(rows, columns=columns)
    return data


def train(task=None, *, formula=None, target=None, **options):
    """Train one Transformer (``infoflow train``); the GIL is released while it runs and Ctrl-C
    stops it (KeyboardInterrupt).

    The target: exactly one of task (a built-in task, see :func:`tasks`), formula (a formula of
    the target language) or target (a target file; ``name=`` picks one of its targets), with
    set (``{"D": 3}``) for a formula's integers. Options: the run settings, with the command's
    defaults and names (``--head-dim`` is ``head_dim``; see :func:`run_settings`):
    task: T, d, D, k, T0, norm, task_seed; model: heads (``[2, 2]``), E, head_dim, ffn_width,
    readout_width, encoder, encoder_width, activation, pe, pre_ln, scale; training: steps, batch,
    lr, beta1, beta2, weight_decay, warmup, min_lr_ratio, clip, eval_every, val_size, seed,
    threads, chunks, precision, until_plateau, plateau_tolerance, checkpoint, checkpoint_every.
    The names ``train --json`` used before (positional, learning_rate, validation_size,
    attention_scale, pre_layer_norm) are read too.

    Returns the dict of ``train --json`` (task, model, training, parameters, result, timing),
    with ``curve`` a dict of numpy arrays: step, learning_rate, train_nmse, validation_nmse.
    The same seed gives bitwise the same result as the command.
    """
    opts = dict(options)
    opts.update(task=task, formula=formula, target=_path(target, "target"))
    return _infoflow.train(opts)


def run_settings():
    """The run settings' table: one dict a key (name, option, section, type, default, help,
    old_name, in_spec), the same table that makes :func:`train`'s keywords, the options of
    ``infoflow train`` and the keys of an experiment's profiles (in_spec) and of the JSON of a
    run. default is None where it is the task's."""
    return _infoflow.run_settings()


def sweep(experiments=None, *, profile="quick", results="results", shard="0/1", where=None,
          workers=0, checkpoint_every=1000):
    """Run what an experiment's results file lacks (``infoflow sweep``), resuming; the GIL is
    released while it runs.

    experiments: experiment files or shipped names (default: every shipped one). results: the
    folder of results files (NAME.jsonl). shard: "i/N" runs every N-th run. where:
    ``["T=16", "heads_pattern=D,D"]`` runs a slice. workers: runs side by side (0: one per core).
    Returns one dict per experiment: runs, skipped, completed, diverged, seconds, results,
    warnings.
    """
    options = dict(profile=profile, results=_path(results, "results"), shard=shard,
                   where=where, workers=workers, checkpoint_every=checkpoint_every)
    return _infoflow.sweep(_paths_list(experiments, "experiments"), default_experiments(),
                           options)


def merge(inputs, output):
    """Join results files (e.g. of shards) into ``output``: every run once (``infoflow merge``).
    Two files holding one run with different results raise InputError and write nothing.
    Returns a dict: output, runs, warnings."""
    if inputs is None:
        raise TypeError("inputs must be a path or a list of paths, got None")
    files = _paths_list(inputs, "inputs")
    if not files:
        raise ValueError("merge needs at least one results file")
    if output is None:
        raise TypeError("output must be a path, got None")
    return _infoflow.merge(files, _path(output, "output"))


def read_results(path):
    """A results file (JSON lines, one run a line) as a pandas DataFrame, one row per run.

    Columns: key, experiment, one column per label of the runs (D, T, heads, seed, ...; numeric
    where every value is a number), status, converged, best_validation_nmse, final_validation_nmse, steps_done, diverged_at,
    parameters, parameters_theory, seconds, seed, curve_step and curve_nmse (numpy arrays).
    Lines that do not parse are skipped with a warning, as by the command.
    """
    import pandas as pd

    data = _infoflow.read_results(_path(path, "path"))
    for w in data["warnings"]:
        _warnings.warn(w, stacklevel=2)
    rows = []
    labels = []
    for r in data["rows"]:
        row = {"key": r["key"], "experiment": r["experiment"]}
        for k, v in r["labels"].items():
            if k not in labels:
                labels.append(k)
            row[k] = v
        for k, v in r.items():
            # A label and a figure of one name (seed) hold the same value: the label's column.
            if k not in ("key", "experiment", "labels") and k not in r["labels"]:
                row[k] = v
        rows.append(row)
    figures = ["status", "converged", "best_validation_nmse", "final_validation_nmse",
               "steps_done", "diverged_at", "parameters", "parameters_theory", "seconds", "seed",
               "curve_step", "curve_nmse"]
    columns = ["key", "experiment"] + labels + [f for f in figures if f not in labels]
    frame = pd.DataFrame(rows, columns=columns)
    for k in labels:
        # Labels are stored as text; a label whose every value is a number becomes numeric.
        converted = pd.to_numeric(frame[k], errors="coerce")
        if len(frame) and converted.notna().all():
            frame[k] = converted
    return frame


def verify(experiments=None, *, profile="quick", results="results", format="data",
           constructions=True, catalogue=None, add=None):
    """Prediction against measurement for each claim of each experiment (``infoflow verify``).

    format "data": one dict per experiment (experiment, title, profile, claim, claims,
    constructed, notes, warnings, text, and latex: its booktabs claims table), each claim a dict
    of group, predicted, measured, verdict ("agrees", "disagrees", "inconclusive"), why,
    cross_check, constructed (a line per construction of its efficient configurations) and
    evidence (what the verdict rests on). constructions=False skips building them
    (``--no-constructions``). format "text" or "latex": a list of str, one per experiment.
    """
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.verify(_paths_list(experiments, "experiments"), default_experiments(),
                            directory, added, _text(profile, "profile"),
                            _path(results, "results"), _text(format, "format"),
                            bool(constructions))


def spend_budget(experiments=None, *, budget, profile="quick", results="results", workers=0,
                 catalogue=None, add=None):
    """Train where claims are undecided for ``budget`` of wall time ("90s", "15m", "1h30m"), as
    ``infoflow verify --budget`` does before verifying (docs/experiments.md, "A time budget");
    the GIL is released while it runs, and the runs go to the results files, resumable.

    workers: runs side by side (0: one per core). Returns a dict: budget and seconds (given and
    spent), spent (a line per request trained) and left (per claim still undecided: experiment,
    group, need, text, estimated_seconds on one worker or None). verify() then reads the results.
    """
    directory, added = _catalogue_args(catalogue, add)
    return _infoflow.spend_budget(_paths_list(experiments, "experiments"), default_experiments(),
                                  directory, added, _text(profile, "profile"),
                                  _path(results, "results"), _text(budget, "budget"),
                                  workers)
