"""What the appendix chapters A-D share to set up and train their runs (Morita).

A chapter is a list of :class:`Panel` s: one task on one core at a few vocabulary sizes,
trained with a few string-keyed *variants* of the input layer (:data:`VARIANTS`).
``run_configs`` expands a resolved chapter config into run configs (one per
panel x vocabulary x variant x seed); ``run`` trains or reuses them through the run
store, so a run that another chapter already made with the same configuration (e.g. the
key-findings reverse runs) is not trained again, and returns one row per run, diverged
runs included. ``validate`` and the ``check_*`` helpers refuse impossible settings
before any work. The summaries are in ``summary``, the grades in ``analysis``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import pandas as pd

from penb import sweeps
from penb.run_config import normalize
from penb import runs
from penb.chapters import rnn_common
from penb.names import VARIANT_LABELS
from penb.presets import require, require_ints

# variant key -> the run fields that make it
VARIANTS = {
    "vanilla": dict(encoding="none", input_mode="concat"),
    "sinusoidal": dict(encoding="sinusoidal", input_mode="concat"),
    "random": dict(encoding="random", input_mode="concat"),
    "learnable": dict(encoding="learnable", input_mode="concat"),
    "double": dict(encoding="none", input_mode="double"),     # [emb, emb] (App. C)
}
# variant key -> its label in tables and legends (vanilla, sinusoidal: ``penb.names``)
LABELS = {"vanilla": VARIANT_LABELS["none"], "sinusoidal": VARIANT_LABELS["sinusoidal"],
          "random": "random PE", "learnable": "learnable PE",
          "double": "double vanilla"}
METRICS = ("token_accuracy", "sequence_accuracy", "mean_distance")


@dataclass(frozen=True)
class Panel:
    """One task x core x vocabularies x variants (a panel of a paper figure).

    ``length`` is the input length L (the longest, for ``reverse_variable``); ``steps``
    the updates per run; ``batch_size`` overrides the chapter's batch (None: the
    chapter's).
    """

    name: str                       # short key, e.g. "sort-gru"
    title: str                      # axis title, e.g. "Sorting, GRU"
    task: str                       # a key of penb.tasks
    core: str                       # gru | lstm | s4d
    vocabs: tuple                   # vocabulary sizes
    variants: tuple                 # keys of VARIANTS
    length: int
    steps: int
    task_options: dict = field(default_factory=dict)
    batch_size: Optional[int] = None

    def describe(self, cfg) -> str:
        """'L 16, 2,000 steps, batch 128': what a stamp says about the panel's runs."""
        batch = self.batch_size or cfg.batch_size
        return f"L {self.length}, {self.steps:,} steps, batch {batch}"


def check_common(cfg, ints: Sequence[str] = ("hidden", "batch_size", "held_out",
                                             "checkpoint_every", "bootstrap",
                                             "workers")) -> None:
    """Raise ``ValueError`` for the training fields every appendix chapter shares."""
    require_ints(cfg, ints)
    require(isinstance(cfg.warmup, int) and cfg.warmup >= 0 and cfg.lr > 0,
            f"need an int warmup >= 0 and lr > 0, got {cfg.warmup!r}, {cfg.lr!r}")
    require(len(cfg.betas) == 2 and all(0 <= b < 1 for b in cfg.betas),
            f"betas must be two numbers in [0, 1), got {cfg.betas}")
    ok = all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
             for s in cfg.seeds)
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds) and ok,
            f"seeds must be distinct ints >= 0, got {cfg.seeds}")
    require(cfg.amp in ("none", "bf16"),
            f"amp must be 'none' or 'bf16', got {cfg.amp!r}")
    rnn_common.check_execution(cfg)
    rnn_common.check_budgets(cfg, ())               # the half budgets: validate(), per panel


def check_vocab(name: str, vocab) -> None:
    """``ValueError`` unless ``vocab`` holds distinct ints >= 2 (``name``: the key)."""
    ints = all(isinstance(v, int) and not isinstance(v, bool) and v >= 2 for v in vocab)
    require(len(vocab) >= 1 and ints, f"{name} must hold ints >= 2, got {vocab!r}")
    require(len(set(vocab)) == len(vocab), f"{name} has repeated sizes: {vocab}")


def check_variants(name: str, variants, allowed: Sequence[str]) -> None:
    """``ValueError`` unless ``variants`` are distinct keys out of ``allowed``."""
    require(len(variants) >= 1 and len(set(variants)) == len(variants),
            f"{name} must be distinct, got {variants!r}")
    for v in variants:
        require(v in allowed,
                f"unknown variant {v!r} in {name}; valid: {', '.join(allowed)}")


def run_config(cfg, panel: Panel, vocab: int, variant: str, seed: int) -> dict:
    """The run config of one run (fields named as in the key-findings
    chapter, so runs coincide)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
    return dict(task=panel.task, task_options=dict(panel.task_options),
                length=panel.length, hidden=cfg.hidden,
                batch_size=panel.batch_size or cfg.batch_size, steps=panel.steps,
                warmup=cfg.warmup, lr=cfg.lr, betas=tuple(cfg.betas),
                held_out=cfg.held_out, checkpoint_every=cfg.checkpoint_every,
                device=cfg.device, amp=cfg.amp, core=panel.core, vocab_size=vocab,
                seed=seed, schedule=cfg.get("schedule", "cosine"), **VARIANTS[variant])


def run_configs(cfg, panels: Sequence[Panel]) -> list[dict]:
    """One config per panel x vocabulary x variant x seed, in that order."""
    return [run_config(cfg, p, v, var, s) for p in panels for v in p.vocabs
            for var in p.variants for s in cfg.seeds]


def validate(cfg, panels: Sequence[Panel]) -> None:
    """``ValueError`` (naming the panel) unless every run of ``panels`` (and its half
    budget) is a valid run config. One seed per (panel, vocabulary, variant)
    is enough; cheap (no model is built), so chapter checks call it before any work."""
    require(len(panels) >= 1, "nothing to run: no panel selected")
    for p in panels:
        check_vocab(f"{p.name} vocabularies", p.vocabs)
        for v in p.vocabs:
            for var in p.variants:
                one = [run_config(cfg, p, v, var, cfg.seeds[0])]
                try:                        # the run and its shorter budgets (N/2, N/4)
                    for c in rnn_common.all_budgets(one, cfg):
                        normalize(c)
                except ValueError as e:
                    raise ValueError(f"panel {p.name!r} (V={v}, {var}): {e}") from None


def variant_of(config: dict) -> str:
    """The variant key of a run config."""
    for k, fields in VARIANTS.items():
        if all(config.get(f) == v for f, v in fields.items()):
            return k
    raise ValueError(f"no variant has encoding={config.get('encoding')!r}, "
                     f"input_mode={config.get('input_mode')!r}")


def run(cfg, panels: Sequence[Panel], executor=None, store: Optional[Path] = None,
        progress: bool = True, desc: str = "runs") -> pd.DataFrame:
    """Train or reuse every run (and, with ``doubling``, each at N/2, and at N/4 with ``earlier``); one
    row per run at the full budget, diverged runs included. Columns: panel, title, task,
    model, vocab, length, steps, variant, label, seed, token_accuracy, sequence_accuracy,
    mean_distance (NaN for a diverged run), diverged, diverged_at (the update at which
    the loss turned non-finite), wall_s, reused (in the store before), key, path."""
    configs = run_configs(cfg, panels)
    per_panel = [len(p.vocabs) * len(p.variants) * len(cfg.seeds) for p in panels]
    owners = [p for p, n in zip(panels, per_panel) for _ in range(n)]
    todo = rnn_common.all_budgets(configs, cfg)                     # N, N/2 (and N/4: earlier)
    results, before = sweeps.chapter_sweep(todo, cfg, desc, executor, store, progress)
    return _rows([(p.name, p.title) for p in owners], results[:len(configs)], before)


def _rows(owners: list[tuple[str, str]], results, before) -> pd.DataFrame:
    """:func:`run`'s frame: a row per run of ``results``, its (panel, title) from ``owners``."""
    bad = {r.key for r in runs.split_diverged(results)[1]}
    rows = []
    for (panel, title), r, found in zip(owners, results, before):
        c, gone = r.config, r.key in bad
        var = variant_of(c)
        values = {m: math.nan if gone else r.metrics[m] for m in METRICS}
        at = r.divergence.get("step", math.nan) if gone else math.nan
        rows.append(dict(panel=panel, title=title, task=c["task"], model=c["core"],
                         vocab=c["vocab_size"], length=c["length"], steps=c["steps"],
                         variant=var, label=LABELS[var], seed=c["seed"], **values,
                         diverged=gone, diverged_at=at, wall_s=r.wall_s, reused=found,
                         key=r.key, path=str(r.path)))
    return pd.DataFrame(rows)


def half_frame(frame: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """The runs of ``frame`` (:func:`run`'s) at half their updates, from the store, as :func:`run` gives
    them; None when ``cfg`` trains none (``doubling``) or one is missing (protocol 4's doubling test)."""
    return _shorter_frame(frame, rnn_common.half_of(frame, cfg))


def quarter_frame(frame: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """As :func:`half_frame`, at a quarter of the updates (protocol 7's earlier doubling); None unless the
    preset trains them (``earlier``) and all are stored."""
    return _shorter_frame(frame, rnn_common.quarter_of(frame, cfg))


def _shorter_frame(frame: pd.DataFrame, found) -> Optional[pd.DataFrame]:
    if found is None:
        return None
    return _rows(list(zip(frame["panel"], frame["title"])), found, [True] * len(found))


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The raw run table of a chapter's ``## Runs`` section: one row per run, few
    columns, rounded; a diverged run shows the update at which it diverged."""
    div = [f"at {int(s)}" if d else "" for d, s in zip(frame["diverged"],
                                                      frame["diverged_at"])]
    t = frame.assign(diverged=div)
    cols = ["title", "vocab", "label", "seed", "token_accuracy", "mean_distance",
            "diverged", "wall_s", "reused"]
    t = t[cols].round({"token_accuracy": 4, "mean_distance": 2, "wall_s": 1})
    return t.set_index(["title", "vocab", "label", "seed"])


def with_half(grade_fn):
    """Decorates an appendix's grading: the passes at N/4 (where trained) and N/2 before the real one
    (``claims.graded_with_half``)."""
    @functools.wraps(grade_fn)
    def graded(frame: pd.DataFrame, cfg, *args):
        from penb import claims  # deferred: cycle: penb.claims's registry reads the presets, which import this module
        return claims.graded_with_half(grade_fn, frame, half_frame(frame, cfg), cfg, *args, steps=cfg.get("steps"),
                                       quarter=quarter_frame(frame, cfg))
    return graded


def bind(panels: Callable, desc: str) -> tuple[Callable, Callable]:
    """``run_configs(cfg)`` and ``run(cfg, executor, store, progress)`` of an appendix whose runs are
    the panels ``panels(cfg)``: its run configs (one per panel x vocabulary x variant x
    seed), and every run trained or reused (the frame of :func:`run`, with ``desc`` on the bar)."""
    def run_configs_of(cfg) -> list[dict]:
        return run_configs(cfg, panels(cfg))

    def run_of(cfg, executor=None, store=None, progress: bool = True):
        return run(cfg, panels(cfg), executor, store, progress, desc=desc)

    run_configs_of.__doc__, run_of.__doc__ = bind.__doc__, bind.__doc__
    return run_configs_of, run_of
