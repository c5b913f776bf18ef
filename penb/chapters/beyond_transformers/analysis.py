"""The runs, summary and grading of the chapter ``beyond_transformers``.

* ``run_configs(cfg)``: one run config per (model, vocabulary, seed); a model of
  :data:`~penb.chapters.beyond_transformers.presets.MODELS` is (layers, encoding) of Irie's causal
  Transformer (``core="transformer"``, the encoding added). ``lstm_configs(cfg)``: key_findings' own
  PE-LSTM runs at the smallest vocabulary (the length study's bridge), made by key_findings' code.
* ``half_configs(cfg)``: the runs of ``cfg.half_models`` again at half their updates (protocol 4's doubling test);
  ``quarter_configs(cfg)``: at a quarter (``cfg.earlier``, issue 58: the doubling before the last, which the horizon
  of protocols 6-7 reads); ``half_frame(frame, cfg)`` / ``quarter_frame``: those runs, from the store.
* ``frame(results)``: one row per run; ``summary``: mean per (model, V); ``ceilings(cfg)``: the order-blind ceiling.

The grading is :mod:`~penb.chapters.beyond_transformers.grading`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, presets, sweeps
from penb import runs
from penb.chapters import rnn_common
from penb.chapters.beyond_transformers.length import MODEL
from penb.chapters.irie.budgets import half, quarter
from penb.chapters.irie.ceiling import blind_ceiling
from penb.chapters.key_findings import analysis as kfa
from penb.executors import Executor

CHAPTER = "beyond_transformers"
LSTM = "PE-LSTM"
BY = MODEL                                  # the column naming each model


def spec(model: str, cfg) -> tuple[int, str]:
    """(layers, encoding) of a model name such as "2-layer PE"."""
    layers = int(model.split("-")[0])
    return layers, ("none" if model.endswith("NoPE") else cfg.encoding)


def run_configs(cfg) -> list[dict]:
    """The Transformer runs: (model, vocabulary, seed), every model at every vocabulary; the one-layer
    model on the first ``one_layer_seeds`` seeds."""
    out = []
    for m in cfg.models:
        layers, enc = spec(m, cfg)
        seeds = cfg.seeds[:cfg.one_layer_seeds] if layers == 1 else cfg.seeds
        out += [dict(task="reverse", vocab_size=v, length=cfg.length, core="transformer", layers=layers,
                     encoding=enc, heads=cfg.heads, norm=cfg.norm, hidden=cfg.dim, steps=cfg.steps,
                     batch_size=cfg.batch_size, lr=cfg.lr, warmup=cfg.warmup, held_out=cfg.held_out,
                     checkpoint_every=cfg.steps, log_every=max(cfg.steps // 50, 1), seed=s, device=cfg.device,
                     dtype="float32")
                for v in cfg.vocab for s in seeds]
    return out


def half_configs(cfg) -> list[dict]:
    """The runs of the models in ``cfg.half_models`` at half their updates, same seeds and vocabularies (the
    cosine schedule ends at its own budget, so each is a run of its own)."""
    return half(c for c in run_configs(cfg) if model_of(c) in cfg.half_models)


def quarter_configs(cfg) -> list[dict]:
    """As :func:`half_configs`, at a quarter of the updates; [] unless ``cfg.earlier``."""
    if not cfg.get("earlier", 0):
        return []
    return quarter(c for c in run_configs(cfg) if model_of(c) in cfg.half_models)


def _kf(cfg):
    """key_findings' config of the PE-LSTM at (L, smallest vocabulary, seeds), from its own preset of this name."""
    return presets.resolve("key_findings", cfg.preset if cfg.preset in ("smoke", "quick", "paper") else "quick",
                           length=cfg.length, lstm_vocab=(min(cfg.vocab),), seeds=tuple(cfg.seeds),
                           core_seeds={}, cores=("lstm",), encodings=("sinusoidal",), device=cfg.device)


def lstm_configs(cfg) -> list[dict]:
    """key_findings' PE-LSTM runs at (L, smallest vocabulary, seeds), made by key_findings' code."""
    return kfa.run_configs(_kf(cfg))


def lstm_half_configs(cfg) -> list[dict]:
    """The PE-LSTM runs at half their updates, as key_findings trains them for its own doubling test (branches of
    the same WSD trunks, so shared through the store); [] when that preset trains none or ``cfg.lstm`` is off.
    The length study's doubling move reads them with the Transformers' half runs."""
    if not (cfg.lstm and cfg.half_models):
        return []
    kcfg = _kf(cfg)
    return rnn_common.half_budgets(kfa.run_configs(kcfg), kcfg)


def lstm_quarter_configs(cfg) -> list[dict]:
    """As :func:`lstm_half_configs`, at a quarter of the updates (key_findings' N/4 branches, where its preset
    trains them); [] unless ``cfg.earlier``."""
    if not (cfg.lstm and cfg.half_models and cfg.get("earlier", 0)):
        return []
    kcfg = _kf(cfg)
    full = kfa.run_configs(kcfg)
    return rnn_common.earlier_budgets(full, kcfg)[:len(full)]


def model_of(config: dict) -> str:
    if config["core"] == "lstm":
        return LSTM
    return f"{config['layers']}-layer {'NoPE' if config['encoding'] == 'none' else 'PE'}"


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> tuple[pd.DataFrame, list]:
    """Train or reuse every Transformer run, the LSTM runs and the runs at half and a quarter of the updates
    (:func:`half_configs`, :func:`quarter_configs`); (:func:`frame` of the full-budget runs, their RunResults).
    :func:`half_frame` and :func:`quarter_frame` read the others."""
    configs = run_configs(cfg) + (lstm_configs(cfg) if cfg.lstm else [])
    shorter = half_configs(cfg) + lstm_half_configs(cfg) + quarter_configs(cfg) + lstm_quarter_configs(cfg)
    results, _ = sweeps.chapter_sweep(configs + shorter, cfg, "beyond_transformers runs", executor, store,
                                      progress)
    return frame(results[:len(configs)]), results[:len(configs)]


def half_frame(frame: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """The runs of :func:`half_configs` from the store that holds ``frame``'s runs, as :func:`frame` gives them,
    with the PE-LSTM's (:func:`lstm_half_configs`) where all of those are stored too; None when ``cfg`` trains
    none, ``frame`` names no stored run (a hand-built table) or one is missing."""
    return _shorter_frame(frame, half_configs(cfg), lstm_half_configs(cfg))


def quarter_frame(frame: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """As :func:`half_frame`, the runs at a quarter of the updates (:func:`quarter_configs`,
    :func:`lstm_quarter_configs`); None unless ``cfg.earlier``."""
    return _shorter_frame(frame, quarter_configs(cfg), lstm_quarter_configs(cfg))


def _shorter_frame(frame: pd.DataFrame, configs: list[dict], lstm: list[dict]) -> Optional[pd.DataFrame]:
    if not configs or not len(frame) or "path" not in frame or not str(frame["path"].iloc[0]):
        return None
    store = Path(frame["path"].iloc[0]).parent
    try:
        found = [runs.load(c, store) for c in configs]
    except (FileNotFoundError, OSError, ValueError):
        return None
    try:
        found += [runs.load(c, store) for c in lstm]
    except (FileNotFoundError, OSError, ValueError):
        pass                                # the length study's LSTM row then has no doubling move
    return _frame_of(found)


def frame(results) -> pd.DataFrame:
    """One row per run: model, vocab, seed, diverged, diverged_at, token_accuracy, wall_s, key, path."""
    return _frame_of(results)


def _frame_of(results) -> pd.DataFrame:
    rows = []
    for o in runs.outcomes(results):
        r = o["result"]
        rows.append(dict(model=model_of(r.config), vocab=int(r.config["vocab_size"]), seed=int(r.config["seed"]),
                         diverged=o["diverged"], diverged_at=o["diverged_at"],
                         token_accuracy=o["metrics"].get("token_accuracy", np.nan), wall_s=o["wall_s"],
                         key=o["key"], path=str(r.path)))
    return pd.DataFrame(rows)


def ceilings(cfg, length: Optional[int] = None) -> dict[int, float]:
    """{V: order-blind ceiling of reversal at ``length`` (default L)}."""
    return {v: blind_ceiling(v, length or cfg.length) for v in cfg.vocab}


def summary(frame: pd.DataFrame, n_resamples: int = 2000, column: str = "token_accuracy") -> pd.DataFrame:
    """One row per (model, vocab): seeds (valid), diverged, accuracy and its 95% interval over seeds."""
    rows = []
    for (m, v), g in frame.groupby([BY, "vocab"], sort=False):
        ok = g[~g["diverged"].astype(bool)]
        mean, lo, hi = claims.bootstrap_interval(ok[column].dropna(), n_resamples=n_resamples)
        rows.append(dict(model=m, vocab=int(v), seeds=len(ok), diverged=int(g["diverged"].sum()),
                         accuracy=mean, accuracy_lo=lo, accuracy_hi=hi))
    return pd.DataFrame(rows)


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[[BY, "vocab", "seed", "token_accuracy", "diverged_at", "wall_s"]].copy()
    out["diverged_at"] = out["diverged_at"].map(lambda s: "" if pd.isna(s) else int(s))
    return out.round({"token_accuracy": 4, "wall_s": 1}).set_index([BY, "vocab", "seed"])
