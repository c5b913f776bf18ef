"""The harm of RARE disturbants (Fig. 3): per seed, the accuracy with FREQUENT disturbants minus the accuracy
with RARE ones, its summaries over seeds, and the regime search's pooled-sequence version.

* :func:`seed_harm` (the graded measure), :func:`harm_summary`, :func:`paired`, :func:`harm_gap`,
  :func:`harm_table`;
* :func:`harm` and :func:`contrast`: pooled over the test sequences of all seeds, as
  ``scripts/search_frequency.py`` scored the regime search (never graded).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from penb import claims
from penb.chapters.frequency.grid import LABELS, RUN, _check_counts, per_seed, seed_summary
from penb.names import model_name, variant_label

VANILLA, PE = variant_label("none"), variant_label("sinusoidal")


def seed_harm(cells_: pd.DataFrame, target: str = "all") -> pd.DataFrame:
    """The harm of RARE disturbants, per run (model x variant x seed), positions pooled.

    ``target``: "all" keeps both target groups (the graded measure); "frequent" or "rare" keeps the
    test sequences whose target is of that group. Columns: model, vocab, variant, seed, target,
    acc_frequent, acc_rare (the seed's accuracy with FREQUENT / RARE disturbants), harm =
    acc_frequent - acc_rare.
    """
    if target not in ("all",) + LABELS:
        raise ValueError(f"target must be 'all', 'frequent' or 'rare', got {target!r}")
    cols = RUN + ["target", "acc_frequent", "acc_rare", "harm"]
    if target != "all":
        cells_ = cells_[cells_["target"] == target]
    if cells_.empty:                                         # every run diverged
        return pd.DataFrame(columns=cols)
    s = per_seed(cells_, ["disturbants"])
    wide = s.pivot_table(index=RUN, columns="disturbants", values="accuracy", sort=False)
    missing = set(LABELS) - set(wide.columns)
    if missing or wide.isna().any().any():
        raise ValueError(f"every run needs both disturbant groups; missing: {sorted(missing)}")
    wide = wide.reset_index().rename(columns={"frequent": "acc_frequent", "rare": "acc_rare"})
    wide.columns.name = None
    out = wide.assign(target=target, harm=wide["acc_frequent"] - wide["acc_rare"])
    return out[cols]


def harm_summary(sh: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """Per model x variant: ``harm`` (mean over seeds), ``lo``, ``hi`` (interval over seeds),
    ``seeds``."""
    return seed_summary(sh, "harm", ["model", "variant"], n_resamples)


def paired(sh: pd.DataFrame, model: str, value: str = "harm") -> pd.DataFrame:
    """``value`` of vanilla and PE of ``model`` side by side, for the seeds valid in both (seed
    order). Columns: seed, vanilla, position-encoded."""
    at = sh[sh["model"] == model]
    if at.empty:
        return pd.DataFrame(columns=["seed"])
    wide = at.pivot_table(index="seed", columns="variant", values=value)
    cols = [v for v in (VANILLA, PE) if v in wide.columns]
    return wide[cols].dropna().sort_index().reset_index().rename_axis(columns=None)


def harm_gap(sh: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """Per model: vanilla harm minus PE harm, paired by seed; ``gap`` (mean over seeds), ``lo``,
    ``hi`` (interval over seeds), ``ahead`` (seeds where vanilla is hurt more), ``seeds``."""
    rows = []
    for model in dict.fromkeys(sh["model"]):
        p = paired(sh, model)
        if not {VANILLA, PE} <= set(p.columns) or p.empty:
            continue
        d = (p[VANILLA] - p[PE]).to_numpy(float)
        mean, lo, hi = claims.bootstrap_interval(d, n_resamples=n_resamples)
        rows.append(dict(model=model, gap=mean, lo=lo, hi=hi, ahead=int((d > 0).sum()),
                         seeds=len(d)))
    return pd.DataFrame(rows, columns=["model", "gap", "lo", "hi", "ahead", "seeds"])


# -- pooled over the test sequences of all seeds (the regime search, scripts/search_frequency.py) --
def harm(cells_: pd.DataFrame, n_resamples: int = 10_000, confidence: float = 0.95,
         seed: int = 0, target: str = "all") -> pd.DataFrame:
    """The harm of RARE disturbants per model x variant, test sequences of all seeds pooled (as the
    regime search scored it; the chapter's claims use :func:`seed_harm`, one value per seed).

    Columns: model, variant, target, acc_frequent, acc_rare, harm, harm_lo, harm_hi (percentile
    bootstrap over the pooled sequences, the two disturbant groups resampled independently).
    """
    if target not in ("all",) + LABELS:
        raise ValueError(f"target must be 'all', 'frequent' or 'rare', got {target!r}")
    if target != "all":
        cells_ = cells_[cells_["target"] == target]
    rng = np.random.default_rng(seed)
    tail = 100 * (1 - confidence) / 2
    rows = []
    for (model, variant), g in cells_.groupby(["model", "variant"], sort=False):
        s = g.groupby("disturbants")[["correct", "n"]].sum()
        if set(s.index) != set(LABELS):
            raise ValueError(f"{model}/{variant}: need both disturbant groups, got "
                             f"{sorted(s.index)}")
        k = s.loc[list(LABELS), "correct"].to_numpy()
        n = s.loc[list(LABELS), "n"].to_numpy()
        _check_counts(k, n, n_resamples, confidence)
        draws = rng.binomial(n[:, None], (k / n)[:, None], size=(2, n_resamples)) / n[:, None]
        lo, hi = np.percentile(draws[0] - draws[1], [tail, 100 - tail])
        rows.append(dict(model=model, variant=variant, target=target, acc_frequent=k[0] / n[0],
                         acc_rare=k[1] / n[1], harm=k[0] / n[0] - k[1] / n[1], harm_lo=lo,
                         harm_hi=hi))
    return pd.DataFrame(rows)


def contrast(harm_: pd.DataFrame) -> pd.DataFrame:
    """Per model, from :func:`harm`: the vanilla and PE harms side by side; ``separated`` when the
    vanilla interval lies wholly above the PE one (the regime search's summary)."""
    rows = []
    for model, g in harm_.groupby("model", sort=False):
        at = g.set_index("variant")
        if not {VANILLA, PE} <= set(at.index):
            continue
        van, pe = at.loc[VANILLA], at.loc[PE]
        rows.append(dict(model=model, target=van.get("target", "all"), vanilla_harm=van.harm,
                         vanilla_lo=van.harm_lo, vanilla_hi=van.harm_hi, pe_harm=pe.harm,
                         pe_lo=pe.harm_lo, pe_hi=pe.harm_hi, vanilla_rare=van.acc_rare,
                         pe_rare=pe.acc_rare, separated=bool(van.harm_lo > pe.harm_hi)))
    return pd.DataFrame(rows)


def _ci(mean: float, lo: float, hi: float) -> str:
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def harm_table(summary: pd.DataFrame, sh: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """Per model: the vanilla and PE harm (mean over seeds [95% interval over seeds]) from
    :func:`harm_summary`, the paired gap vanilla - PE (:func:`harm_gap`) and the seeds behind it."""
    gaps = harm_gap(sh, n_resamples).set_index("model")
    rows = []
    for model in dict.fromkeys(summary["model"]):
        row = {"model": model_name(model)}
        for variant in (VANILLA, PE):
            s = summary[(summary["model"] == model) & (summary["variant"] == variant)]
            row[f"{variant} harm"] = _ci(*s[["harm", "lo", "hi"]].iloc[0]) if len(s) else ""
        if model in gaps.index:
            g = gaps.loc[model]
            row["vanilla - PE"] = _ci(g["gap"], g["lo"], g["hi"])
            row["vanilla hurt more"] = f"{int(g['ahead'])}/{int(g['seeds'])} seeds"
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")
