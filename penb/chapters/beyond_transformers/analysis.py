"""The runs, summary and grading of the chapter ``beyond_transformers``.

* ``run_configs(cfg)``: one ``penb.train`` config per (model, vocabulary, seed); a model of
  :data:`~penb.chapters.beyond_transformers.presets.MODELS` is (layers, encoding) of Irie's causal
  Transformer (``core="transformer"``, the encoding added). ``lstm_configs(cfg)``: key_findings' own
  PE-LSTM runs at the smallest vocabulary (the length study's bridge), made by key_findings' code.
* ``half_configs(cfg)``: the runs of ``cfg.half_models`` again at half their updates (protocol 4's doubling test);
  ``quarter_configs(cfg)``: at a quarter (``cfg.earlier``, issue 58: the doubling before the last, which the horizon
  of protocols 6-7 reads); ``half_frame(frame, cfg)`` / ``quarter_frame``: those runs, from the store.
* ``frame(results)``: one row per run; ``summary``: mean per (model, V); ``ceilings(cfg)``: the order-blind ceiling.
* ``length_frame(...)``: every run of the length study scored at L (its own test) and at test_factor x L.
* ``grade(frame, lengths, cfg)``: every hypothesis of the chapter through ``penb.claims``, the ones about trained
  models against their evidence at half the updates (``claims.graded_with_half``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, presets, sweeps
from penb import runs
from penb.chapters import rnn_common
from penb.chapters.beyond_transformers.length import MODEL, length_frame
from penb.chapters.irie.budgets import half, next_cost, quarter
from penb.chapters.irie.ceiling import binomial_margin as margin  # noqa: F401 (the chapter's margin)
from penb.chapters.irie.ceiling import blind_ceiling
from penb.chapters.key_findings import analysis as kfa
from penb.claims import evidence, training
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


# --- the length study -----------------------------------------------------------------------------------
# --- grading ---------------------------------------------------------------------------------------------
def blind_evidence(frame: pd.DataFrame, cfg) -> dict:
    """Evidence of ``beyond.tf.one_layer_blind`` (rule ``check``): per vocabulary, every valid seed of the one-layer
    NoPE model against the order-blind ceiling plus its test-noise margin; inconclusive for a diverged run, fewer
    than ``min_seeds`` valid seeds at a vocabulary, or a mean accuracy within ``baseline_margin`` of chance 1/V
    there (a model that learned nothing is under any ceiling); ``levels``, each vocabulary's accuracy on the seeds
    valid at every vocabulary, is what protocol 4's doubling test reads."""
    p = claims.get("beyond.tf.one_layer_blind").rule.params
    at = frame[frame[BY] == "1-layer NoPE"]
    ok_rows = at[~at["diverged"].astype(bool)]
    common = sorted(set.intersection(*(set(ok_rows[ok_rows["vocab"] == v]["seed"].astype(int))
                                       for v in cfg.vocab))) if len(ok_rows) else []
    rows, ok, short, idle, levels = [], True, [], [], {}
    for v, c in ceilings(cfg).items():
        cell = ok_rows[ok_rows["vocab"] == v]
        g = cell["token_accuracy"]
        m = margin(c, cfg.held_out * cfg.length)
        above = int((g > c + m).sum())
        ok &= above == 0
        if len(g) < p["min_seeds"]:
            short.append(v)
        elif not g.mean() > 1 / v + p["baseline_margin"]:
            idle.append(v)
        by_seed = dict(zip(cell["seed"].astype(int), g.astype(float)))
        levels[f"1-layer NoPE accuracy, V {v}"] = [by_seed[s] for s in common]
        rows.append(f"V {v}: max {g.max():.3f} vs ceiling {c:.3f} + {m:.3f} ({above}/{len(g)} above; chance "
                    f"{1 / v:.4f})")
    ev = {"passed": ok, "detail": "; ".join(rows), "levels": levels, "level_seeds": common,
          "why": "a one-layer NoPE model beat the order-blind ceiling at some vocabulary"}
    if int(at["diverged"].sum()):
        ev["inconclusive"] = f"{int(at['diverged'].sum())} diverged run(s)"
    elif short:
        ev["inconclusive"] = f"fewer than {p['min_seeds']} valid seeds at V {short}"
    elif idle:
        ev["inconclusive"] = (f"the model sits within {p['baseline_margin']} of chance at V {idle}: a model that "
                              "learned nothing is under any ceiling")
    return ev


def blind_cost(frame: pd.DataFrame, cfg) -> dict:
    """What the next doubling of the one-layer NoPE runs in ``frame`` would cost (``budgets.next_cost``)."""
    rows = frame[frame[BY] == "1-layer NoPE"]
    configs = [dict(core="transformer", steps=cfg.steps, batch_size=cfg.batch_size, length=cfg.length,
                    hidden=cfg.dim, vocab_size=int(v)) for v in rows["vocab"]]
    return next_cost(configs, rows["wall_s"] if "wall_s" in rows else [])


def trend_evidence(frame: pd.DataFrame, cfg) -> dict:
    xs = sorted(cfg.vocab)
    per = [evidence.wide(frame[frame["vocab"] == v], BY, ["2-layer PE", "2-layer NoPE"]) for v in xs]
    seeds = sorted(set.intersection(*(set(w.index) for w in per)))
    gaps = [[float(w.loc[s, "2-layer PE"] - w.loc[s, "2-layer NoPE"]) for w in per] for s in seeds]
    dead = int(frame[frame[BY].isin(["2-layer PE", "2-layer NoPE"])]["diverged"].sum())
    by_x = {n: [[float(w.loc[s, n]) for w in per] for s in seeds] for n in ("2-layer PE", "2-layer NoPE")}
    return {"x": xs, "gaps": gaps, "seeds": seeds, "diverged": dead, "x_name": "V",
            # protocol 5 reads both models at every vocabulary (penb.claims.doubling)
            "a_by_x": by_x["2-layer PE"], "b_by_x": by_x["2-layer NoPE"], "a_name": "2-layer PE",
            "b_name": "2-layer NoPE"}


def _by_v(trend: dict) -> dict:
    """{"2-layer PE at V 32": per-seed accuracy, ...}: the slope's models at every V (protocol 5 reads each)."""
    return {f"{trend[n]} at V {v}": [row[j] for row in trend[side]] for side, n in (("a_by_x", "a_name"),
            ("b_by_x", "b_name")) if trend.get(side) for j, v in enumerate(trend["x"])}


def slope_evidence(trend: dict) -> dict:
    """Rule "no_gain" on a trend's per-seed slopes (``morita.sec5_2.attention``: no growth of PE's gain with V):
    a, each seed's least-squares slope of the gap against log2 V; b, no growth (0)."""
    gaps = np.asarray(trend["gaps"], float)
    slopes = np.polyfit(np.log2(np.asarray(trend["x"], float)), gaps.T, 1)[0] if len(gaps) else np.array([])
    return {"a": [float(v) for v in np.atleast_1d(slopes)], "b": [0.0] * len(gaps), "b_fixed": True,
            "seeds": trend["seeds"], "held_models": _by_v(trend),
            "diverged": {"2-layer runs": trend["diverged"]}, "a_name": "slope of PE's gain per doubling of V",
            "b_name": "no growth"}


def grade(frame: pd.DataFrame, lengths: Optional[pd.DataFrame], cfg,
          half: Optional[pd.DataFrame] = None, half_lengths: Optional[pd.DataFrame] = None,
          quarter: Optional[pd.DataFrame] = None, quarter_lengths: Optional[pd.DataFrame] = None
          ) -> list[claims.Grade]:
    """Every hypothesis of the chapter, in registry order (``not tested`` where this config lacks a model), under
    protocol 4: those about trained models against the same evidence on the runs at half the updates (``half``,
    by default :func:`half_frame`), and at a quarter where the preset trains them (``quarter``, by default
    :func:`quarter_frame`: the horizon's earlier doubling). The length study's evidence at a shorter budget is
    those runs scored at the long length (``half_lengths`` / ``quarter_lengths``, by default :func:`length_frame`
    of ``half`` / ``quarter`` when ``lengths`` is given)."""
    half = half_frame(frame, cfg) if half is None else half
    quarter = quarter_frame(frame, cfg) if quarter is None else quarter
    half_lengths = _lengths_of(half, lengths, cfg) if half_lengths is None else half_lengths
    quarter_lengths = _lengths_of(quarter, lengths, cfg) if quarter_lengths is None else quarter_lengths
    by_frame = {id(frame): lengths, id(half): half_lengths, id(quarter): quarter_lengths}
    return claims.graded_with_half(lambda f, c: _grade(f, by_frame.get(id(f)), c), frame, half, cfg,
                                   steps=cfg.steps, quarter=quarter)


def _lengths_of(shorter: Optional[pd.DataFrame], lengths: Optional[pd.DataFrame], cfg) -> Optional[pd.DataFrame]:
    """:func:`length_frame` of the stored runs ``shorter`` (None without them, or when the full budget's
    ``lengths`` is not given)."""
    if lengths is None or shorter is None or "path" not in shorter:
        return None
    return length_frame(shorter, None, cfg, progress=False)[0]


def _grade(frame: pd.DataFrame, lengths: Optional[pd.DataFrame], cfg) -> list[claims.Grade]:
    have = set(frame[BY])
    vmax, v0 = max(cfg.vocab), min(cfg.vocab)
    long_ceiling = blind_ceiling(v0, cfg.test_factor * cfg.length)
    out = []
    for c in claims.of_chapter(CHAPTER):
        need = {"beyond.tf.one_layer_blind": {"1-layer NoPE"}, "beyond.tf.two_layer_no_pe": {"2-layer PE", "2-layer NoPE"},
                "beyond.tf.vocab_effect": {"2-layer PE", "2-layer NoPE"}, "beyond.length.nope": {"2-layer PE", "2-layer NoPE"},
                "morita.sec5_2.attention": {"2-layer PE", "2-layer NoPE"},
                "beyond.length.lstm": {"2-layer NoPE", LSTM}}[c.key]
        if c.key.startswith("beyond.length"):
            pool = set(lengths[BY]) if lengths is not None else set()
        else:
            pool = have
        if not need <= pool:
            out.append(claims.not_tested(c.key, f"not at this preset: needs {', '.join(sorted(need))}", cfg))
            continue
        if c.key == "beyond.tf.one_layer_blind":
            t = training.combine(training.state(frame[frame["vocab"] == v], BY, ["1-layer NoPE"], cell=f"V {v}")
                                 for v in sorted(cfg.vocab))
            g = claims.grade(c.key, blind_evidence(frame, cfg), cfg, training=t, next_cost=blind_cost(frame, cfg),
                             vocab=list(cfg.vocab))
        elif c.key == "beyond.tf.two_layer_no_pe":
            ev = evidence.paired(frame[frame["vocab"] == vmax], BY, "2-layer PE", "2-layer NoPE",
                                 baseline=blind_ceiling(vmax, cfg.length), vocab=vmax)
            t = training.state(frame[frame["vocab"] == vmax], BY, ["2-layer PE", "2-layer NoPE"])
            g = claims.grade(c.key, ev, cfg, training=t, vocab=vmax)
        elif c.key in ("beyond.tf.vocab_effect", "morita.sec5_2.attention"):
            if len(cfg.vocab) < 3:
                out.append(claims.not_tested(c.key, "not at this preset: the trend needs 3 vocabularies", cfg))
                continue
            t = training.combine(training.state(frame[frame["vocab"] == v], BY, ["2-layer PE", "2-layer NoPE"],
                                                cell=f"V {v}") for v in sorted(cfg.vocab))
            ev = trend_evidence(frame, cfg)
            g = claims.grade(c.key, ev if c.key == "beyond.tf.vocab_effect" else slope_evidence(ev), cfg,
                             training=t, vocab=sorted(cfg.vocab))
        else:
            b = "2-layer PE" if c.key == "beyond.length.nope" else LSTM
            ev = evidence.paired(lengths, BY, "2-layer NoPE", b, metric="at_long", baseline=long_ceiling,
                                 vocab=v0, test_length=cfg.test_factor * cfg.length)
            extra = {} if b != LSTM else {"precision": "Transformers fp32; " + ", ".join(sorted(
                {f"LSTM {'bf16' if x['amp'] == 'bf16' else 'fp32'}" for x in lstm_configs(cfg)}))}
            t = training.state(frame[frame["vocab"] == v0], BY, ["2-layer NoPE", b])
            g = claims.grade(c.key, ev, cfg, training=t, vocab=v0, **extra)
        out.append(g)
    return out


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[[BY, "vocab", "seed", "token_accuracy", "diverged_at", "wall_s"]].copy()
    out["diverged_at"] = out["diverged_at"].map(lambda s: "" if pd.isna(s) else int(s))
    return out.round({"token_accuracy": 4, "wall_s": 1}).set_index([BY, "vocab", "seed"])
