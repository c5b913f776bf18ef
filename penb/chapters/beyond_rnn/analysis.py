"""The runs, summary and grading of the chapter "What in the encoding helps an RNN" (``beyond_rnn``).

Every run is the reversal task of Fig. 2 on one model (``cfg.cores[0]``) and one vocabulary (``cfg.vocab``)
under key_findings' training settings, so the vanilla and full-PE runs are key_findings' own. A *variant*
is (label, encoding key, input mode), see :func:`variants`:

* ``vanilla`` (``none``) and ``sinusoidal`` (Eq. 1-2), concatenated: the two runs of Fig. 2;
* bands (study 1): ``high``, ``low``, ``spread`` (``sinusoidal_<band>``) and ``phase``
  (``sinusoidal_phase``), unit norm, concatenated (``penb.encodings.variants``);
* blog (study 2): ``unit_<key>`` for the blog's encodings, scaled to unit mean norm, and ``onehot``;
* ``added`` (study 3): Eq. 1-2 added to the embedding (``input_mode="add"``).

``frame(results)`` has one row per run (variant, seed, token_accuracy, diverged, ...); ``summary`` the mean
over seeds with its bootstrap interval; ``floors(cfg)`` the invertibility of each blog encoding from the
invertibility chapter; ``grade(frame, cfg)`` every hypothesis of the chapter through ``penb.claims``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from penb import claims, presets
from penb import runs
from penb import sweeps
from penb.chapters import rnn_common
from penb.chapters.invertibility import analysis as inv
from penb.chapters.key_findings.analysis import run_config
from penb.claims import evidence, training
from penb.encodings import blog
from penb.executors import Executor
from penb.presets import left_out

CHAPTER = "beyond_rnn"
VANILLA, PE, ADDED, ONEHOT = "vanilla", "sinusoidal", "added", "onehot"
BY = "variant"


def variants(cfg) -> list[tuple[str, str, str]]:
    """(label, encoding key, input mode) of every variant the config runs, in display order."""
    out = [(VANILLA, "none", "concat"), (PE, "sinusoidal", "concat")]
    out += [(b, f"sinusoidal_{b}", "concat") for b in cfg.bands]
    out += [(k, f"unit_{k}", "concat") for k in cfg.blog]
    out += [(ONEHOT, "onehot", "concat")] if cfg.onehot else []
    out += [(ADDED, "sinusoidal", "add")] if cfg.add else []
    return out


def run_configs(cfg) -> list[dict]:
    """One run config per (variant, seed of :func:`seeds_of`); vanilla and PE are exactly
    key_findings' configs."""
    out = []
    for label, enc, mode in variants(cfg):
        extra = {} if mode == "concat" else {"input_mode": mode}
        out += [dict(run_config(cfg, cfg.cores[0], cfg.vocab, enc, s), **extra) for s in seeds_of(cfg, label)]
    return out


def seeds_of(cfg, label: str) -> tuple:
    """The seeds variant ``label`` trains: the first ``variant_seeds[label]`` of ``cfg.seeds`` (all of them when
    the variant has no count of its own). Two variants compared pair their common seeds."""
    return tuple(cfg.seeds[:cfg.variant_seeds.get(label, len(cfg.seeds))])


def label_of(config: dict) -> str:
    """The variant label of a run config."""
    enc, mode = config["encoding"], config.get("input_mode", "concat")
    if mode == "add":
        return ADDED
    if enc == "none":
        return VANILLA
    return enc.removeprefix("sinusoidal_").removeprefix("unit_")


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of ``cfg`` (and, with ``doubling``, each at half its updates: protocol 4; with
    ``earlier``, at a quarter too);
    the :func:`frame` of the full-budget runs."""
    configs = run_configs(cfg)
    todo = rnn_common.all_budgets(configs, cfg)                     # N, N/2 (and N/4: earlier)
    results, _ = sweeps.chapter_sweep(todo, cfg, "beyond_rnn runs", executor, store, progress)
    return frame(results[:len(configs)])


def half_frame(frame_: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """The runs of ``frame_`` at half their updates, from the store (:func:`frame`'s table); None when ``cfg``
    trains none or one is missing (then the hypotheses about trained models read undecided)."""
    found = rnn_common.half_of(frame_, cfg)
    return None if found is None else frame(found)


def quarter_frame(frame_: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """As :func:`half_frame`, the runs at a quarter of the updates (the horizon's earlier doubling); None unless
    ``cfg.earlier`` and all are stored."""
    found = rnn_common.quarter_of(frame_, cfg)
    return None if found is None else frame(found)


def frame(results: Iterable[runs.RunResult]) -> pd.DataFrame:
    """One row per run: variant, encoding, input_mode, seed, diverged, diverged_at, token_accuracy,
    mean_distance (NaN for a diverged run), wall_s, key, path."""
    rows = []
    for o in runs.outcomes(results):
        c, m = o["result"].config, o["metrics"]
        rows.append(dict(variant=label_of(c), encoding=c["encoding"], input_mode=c.get("input_mode", "concat"),
                         seed=int(c["seed"]), diverged=o["diverged"], diverged_at=o["diverged_at"],
                         token_accuracy=m.get("token_accuracy", np.nan),
                         mean_distance=m.get("mean_distance", np.nan), wall_s=o["wall_s"], key=o["key"],
                         path=str(o["result"].path)))
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame, n_resamples: int = 2000) -> pd.DataFrame:
    """One row per variant (display order): seeds (valid), diverged, accuracy with its 95% bootstrap interval
    over seeds, and gain over vanilla (paired by seed) with its interval."""
    base = frame[frame[BY] == VANILLA].set_index("seed")["token_accuracy"]
    rows = []
    for label, g in frame.groupby(BY, sort=False):
        ok = g[~g["diverged"].astype(bool)]
        acc = claims.bootstrap_interval(ok["token_accuracy"], n_resamples=n_resamples)
        d = (ok.set_index("seed")["token_accuracy"] - base).dropna()
        gain = claims.bootstrap_interval(d, n_resamples=n_resamples)
        rows.append(dict(variant=label, seeds=len(ok), diverged=int(g["diverged"].sum()),
                         accuracy=acc[0], accuracy_lo=acc[1], accuracy_hi=acc[2],
                         gain=gain[0], gain_lo=gain[1], gain_hi=gain[2]))
    return pd.DataFrame(rows).set_index(BY)


# --- invertibility (Hansen) ----------------------------------------------------------------------------
def floors(cfg) -> pd.Series:
    """The invertibility of each blog encoding of ``cfg.blog``, from the invertibility chapter at preset
    ``cfg.invert_preset``: the exact loss floor of its family where the chapter derives one (affine in the
    position: direct*, linear*; normal quantiles: normal*), else (sincos) the loss its inverter reaches at
    the end of the chapter's study, pooled over that preset's seeds. Lower: easier to invert."""
    icfg = presets.resolve("invertibility", cfg.invert_preset)
    exact = inv.floors(icfg.length)
    out = {}
    rest = [k for k in cfg.blog if not (blog.is_affine_in_t(k) or k.startswith("normal"))]
    if rest:
        end = inv.pooled_mean(inv.run(icfg, progress=False, encodings=rest)).iloc[-1]
    for k in cfg.blog:
        out[k] = exact["affine"] if blog.is_affine_in_t(k) else exact["normal"] if k.startswith("normal") \
            else float(end[k])
    return pd.Series(out, name="floor")


def rank_evidence(frame: pd.DataFrame, floor: pd.Series) -> dict:
    """Evidence of ``beyond.hansen.invertibility``: per seed, minus the Spearman correlation over the blog
    encodings between the floor and the accuracy gain over vanilla (seeds with every run valid)."""
    keys = list(floor.index)
    w = evidence.wide(frame, BY, [VANILLA, *keys])
    rho = [float(spearmanr(floor.to_numpy(), (w.loc[s, keys] - w.loc[s, VANILLA]).to_numpy())[0])
           for s in w.index]
    per = [-r if np.isfinite(r) else 0.0 for r in rho]
    k = len(keys)
    return {"a": per, "b": [0.0] * len(per), "b_fixed": True, "seeds": [int(s) for s in w.index], "baseline": None,
            "diverged": evidence.diverged(frame, BY, [VANILLA, *keys]), "a_name": "minus rank correlation",
            "b_name": "no relation (0)", "rho": rho, "floors": floor.to_dict(),
            # issue 41: a rank over k items takes values 12 / (k (k^2 - 1)) apart (without ties), the resolution
            # no interval is narrower than; protocol 5 also reads each encoding's gain, whose moves could reorder it
            "resolution": 12 / (k * (k * k - 1)) if k > 1 else None,
            "held_models": {f"{key}'s gain over vanilla": [float(w.loc[s, key] - w.loc[s, VANILLA]) for s in w.index]
                            for key in keys}}


# --- grading -------------------------------------------------------------------------------------------
# hypothesis -> (rule's a, rule's b): the variants compared, paired by seed
PAIRS = {"beyond.bands.high": ("high", VANILLA), "beyond.bands.high_over_low": ("high", "low"),
         "beyond.bands.spread": ("spread", VANILLA), "beyond.bands.phase": (PE, "phase"),
         "beyond.hansen.normal": ("normal", VANILLA), "beyond.add.keeps": (ADDED, VANILLA),
         "beyond.add.as_concat": (PE, ADDED)}
RANK = "beyond.hansen.invertibility"
# (preset, hypothesis) -> why the preset trains no variant for it: none at quick since issue 41
# (penb.sizing.QUICK_RULE: cells are left out for cost or need, never for a verdict, a move or the pilot's power)
NOT_RUN: dict = {}


def grade(frame: pd.DataFrame, cfg, floor: Optional[pd.Series] = None) -> list[claims.Grade]:
    """Every hypothesis of the chapter, in registry order, graded on ``frame`` (``not tested`` where this
    config lacks a variant it needs), under protocol 4: the same grading first on the runs at half the updates
    (:func:`half_frame`), whose evidence the doubling test reads, and at a quarter (:func:`quarter_frame`) where
    the preset trains it (the horizon's earlier doubling)."""
    return claims.graded_with_half(_grade, frame, half_frame(frame, cfg), cfg, floor, steps=cfg.get("steps"),
                                   quarter=quarter_frame(frame, cfg))


def _grade(frame: pd.DataFrame, cfg, floor: Optional[pd.Series] = None) -> list[claims.Grade]:
    present = set(frame[BY])
    out = []
    for c in claims.of_chapter(CHAPTER):
        if c.key == RANK:
            if floor is None or len(floor) < 3:
                out.append(claims.not_tested(c.key, "not at this preset: fewer than 3 blog encodings", cfg))
            else:
                t = training.state(frame, BY, list(dict.fromkeys(frame[BY])))
                out.append(claims.grade(c.key, rank_evidence(frame, floor), cfg, training=t, vocab=cfg.vocab))
            continue
        a, b = PAIRS[c.key]
        if not {a, b} <= present:
            why = left_out(NOT_RUN, cfg, c.key)
            out.append(claims.not_tested(c.key, f"not at this preset: needs variants {a!r} and {b!r}"
                                         + (f" ({why})" if why else ""), cfg))
            continue
        ev = evidence.paired(frame, BY, a, b, baseline=1.0 / cfg.vocab, vocab=cfg.vocab)
        out.append(claims.grade(c.key, ev, cfg, training=training.state(frame, BY, (a, b)), vocab=cfg.vocab))
    return out


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The raw runs for the page, rounded; a diverged run shows its step."""
    out = frame[["variant", "encoding", "input_mode", "seed", "token_accuracy", "diverged_at", "wall_s"]].copy()
    out["diverged_at"] = out["diverged_at"].map(lambda s: "" if pd.isna(s) else int(s))
    return out.round({"token_accuracy": 4, "wall_s": 1}).set_index(["variant", "seed"])
