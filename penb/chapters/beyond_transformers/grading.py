"""The grading of the chapter ``beyond_transformers``: every hypothesis through ``penb.claims``, the ones about
trained models against their evidence at half and a quarter of the updates (``claims.graded_with_half``).

* ``blind_evidence``: the one-layer NoPE model against the order-blind ceiling at every vocabulary;
* ``trend_evidence`` / ``slope_evidence``: the two-layer models' gap over the vocabularies, and its per-seed slope;
* ``grade(frame, lengths, cfg)``: every hypothesis, in registry order.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from penb import claims
from penb.chapters.beyond_transformers import analysis
from penb.chapters.beyond_transformers.analysis import BY, CHAPTER, LSTM, ceilings, lstm_configs
from penb.chapters.beyond_transformers.length import length_frame
from penb.chapters.irie.budgets import next_cost
from penb.chapters.irie.ceiling import binomial_margin as margin
from penb.chapters.irie.ceiling import blind_ceiling
from penb.claims import evidence, training


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
    by default ``analysis.half_frame``), and at a quarter where the preset trains them (``quarter``, by default
    ``analysis.quarter_frame``: the horizon's earlier doubling). The length study's evidence at a shorter budget is
    those runs scored at the long length (``half_lengths`` / ``quarter_lengths``, by default :func:`length_frame`
    of ``half`` / ``quarter`` when ``lengths`` is given)."""
    half = analysis.half_frame(frame, cfg) if half is None else half
    quarter = analysis.quarter_frame(frame, cfg) if quarter is None else quarter
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
