"""Morita's Fig. 3 (Sec. 4.2): accuracy on the dual-frequency test grid, vanilla vs. PE.

The test set of a ``dual_frequency`` run (``penb.tasks``) holds, for every target group
(FREQUENT/RARE), disturbant group (all FREQUENT/all RARE) and target position t = 1..L,
``per_cell`` sequences; only the target's output step is scored, so each test sequence is one
right-or-wrong outcome.

* :func:`run_configs` lists the runs of a resolved ``frequency`` (or ``gradient_stability``)
  config, :func:`run` trains them (or reuses them from the run store) and keeps the diverged ones
  apart (``diverged`` column, no metrics);
* :func:`cells` counts, per valid run, correct/scored sequences per (target, disturbants,
  position);
* :func:`per_seed` gives each run's (seed's) accuracy per group of cells; :func:`by_quarter` and
  :func:`by_position` summarise the seeds (seed-level mean and 95% bootstrap interval over seeds,
  ``penb.claims.seed_interval``; the pooled-sequence interval of Fig. 3's caption stays as the
  secondary columns ``seq_lo``/``seq_hi``);
* :func:`seed_harm` is the measure of the registered claims: per seed, the accuracy with FREQUENT
  disturbants minus the accuracy with RARE ones (the *harm* of RARE disturbants);
  :func:`harm_summary` and :func:`harm_gap` summarise it over seeds;
* :func:`grade_claims` builds the evidence of every claim of the chapter (``penb.claims``) and
  grades it; :func:`harm` and :func:`contrast` are the regime search's pooled-sequence summary.

Bootstrap of a proportion (:func:`proportion_ci`): the mean of n right/wrong outcomes resampled
with replacement from a sample with k right is exactly Binomial(n, k/n) / n, so binomials are drawn
instead of resampled indices.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, runs
from penb.chapters import rnn_common
from penb.executors import Executor
from penb.names import model_name, variant_label
from penb.tasks import IGNORE

LABELS = ("frequent", "rare")
CONDITIONS = tuple((t, d) for t in LABELS for d in LABELS)   # (target, disturbants)
SEARCH_LOG = Path(__file__).with_name("search_log.csv")     # the regime search (search_table)
VANILLA, PE = variant_label("none"), variant_label("sinusoidal")

# The claims this chapter grades (penb.claims.morita), by kind and model.
HARM = {core: f"morita.fig3.harm.{core}" for core in ("gru", "lstm", "s4d")}
ROBUST = {core: f"morita.fig3.pe_robust.{core}" for core in ("gru", "lstm", "s4d")}
EXCEPTION = "morita.fig3.gru_exception"                      # no rule in the registry


def run_configs(cfg) -> list[dict]:
    """One ``penb.train`` config per (core, encoding, seed): the dual-frequency task with its test
    grid of ``4 x length x per_cell`` sequences. Only the training keys of
    ``penb.chapters.frequency.presets`` enter, so ``frequency`` and ``gradient_stability`` agree."""
    common = dict(task="dual_frequency", task_options={"rarity": float(cfg.rarity)},
                  length=cfg.length, betas=tuple(cfg.betas),
                  held_out=4 * cfg.length * cfg.per_cell,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **rnn_common.settings(cfg, core), core=core,
                 vocab_size=cfg[f"{core}_vocab"], encoding=e, seed=s)
            for core in cfg.cores for e in cfg.encodings for s in cfg.seeds]


def _row(r: runs.RunResult) -> dict:
    c = r.config
    return dict(model=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                variant=variant_label(c["encoding"]), seed=c["seed"], diverged=r.diverged,
                diverged_at=r.divergence.get("step", np.nan),
                token_accuracy=r.metrics.get("token_accuracy", np.nan), wall_s=r.wall_s,
                key=r.key, path=str(r.path))


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of the resolved ``frequency`` (or ``gradient_stability``) config.

    One row per run, in config order: model, vocab, encoding, variant, seed, diverged (bool),
    diverged_at (step, NaN for a valid run), token_accuracy (whole test grid; NaN when diverged),
    wall_s (training time where it was made), key, path (run folder).
    """
    results, _ = runs.chapter_sweep(run_configs(cfg), cfg, "Fig. 3 runs", executor, store,
                                    progress)
    valid, diverged = runs.split_diverged(results)
    order = {r.key: i for i, r in enumerate(results)}
    rows = sorted((_row(r) for r in valid + diverged), key=lambda row: order[row["key"]])
    return pd.DataFrame(rows)


def diverged_counts(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    """{(model, variant): number of diverged runs} for every model x variant of ``frame``."""
    g = frame.groupby(["model", "variant"], sort=False)["diverged"].sum()
    return {k: int(v) for k, v in g.items()}


def quarters(length: int) -> list[tuple[int, int]]:
    """The four quarters of target positions, 1-based, inclusive: 64 -> (1, 16), ..., (49, 64)."""
    if isinstance(length, bool) or not isinstance(length, int) or length < 4 or length % 4:
        raise ValueError(f"length must be an int multiple of 4 (four quarters), got {length!r}")
    q = length // 4
    return [(i * q + 1, (i + 1) * q) for i in range(4)]


def quarter_label(position, length: int) -> np.ndarray:
    """Labels "1-16", ... of 1-based ``position`` (int array) at input length ``length``."""
    position = np.asarray(position)
    if position.size and (position.min() < 1 or position.max() > length):
        raise ValueError(f"positions must lie in 1..{length}, got "
                         f"{position.min()}..{position.max()}")
    names = np.array([f"{a}-{b}" if b > a else f"{a}" for a, b in quarters(length)])
    return names[(position - 1) // (length // 4)]


def cell_counts(pred: dict) -> pd.DataFrame:
    """Per (target, disturbants, position) of one run's test grid: ``correct`` and ``n``.

    pred: a run's held-out predictions (``penb.runs.RunResult.predictions()``): ``predictions`` /
    ``targets`` int [n, T] with one scored step per row, ``target_rare``, ``disturbants_rare``,
    ``target_position`` (0-based) int [n]. Positions come out 1-based.
    """
    for k in ("predictions", "targets", "target_rare", "disturbants_rare", "target_position"):
        if k not in pred:
            raise ValueError(f"not a dual-frequency test grid: {k!r} missing "
                             f"(keys: {sorted(pred)})")
    p, t = np.asarray(pred["predictions"]), np.asarray(pred["targets"])
    scored = t != IGNORE
    if p.shape != t.shape or not (scored.sum(1) == 1).all():
        raise ValueError("every test sequence of the grid must have exactly one scored step")
    correct = ((p == t) & scored).sum(1)
    frame = pd.DataFrame({"target": np.array(LABELS)[np.asarray(pred["target_rare"])],
                          "disturbants": np.array(LABELS)[np.asarray(pred["disturbants_rare"])],
                          "position": np.asarray(pred["target_position"]) + 1,
                          "correct": correct})
    g = frame.groupby(["target", "disturbants", "position"])["correct"]
    return g.agg(correct="sum", n="size").reset_index()


def cells(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`cell_counts` of every valid run of ``frame`` (from :func:`run`), with model, vocab,
    encoding, variant, seed. Diverged runs have no predictions and are left out."""
    out = []
    for row in frame[~frame["diverged"].astype(bool)].itertuples():
        counts = cell_counts(runs.RunResult.from_dir(row.path).predictions())
        out.append(counts.assign(model=row.model, vocab=row.vocab, encoding=row.encoding,
                                 variant=row.variant, seed=row.seed))
    cols = ["model", "vocab", "encoding", "variant", "seed", "target", "disturbants",
            "position", "correct", "n"]
    return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)


def proportion_ci(correct, n, n_resamples: int = 10_000, confidence: float = 0.95,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high), each float [m]: percentile bootstrap of k/n for m cells of
    right/wrong outcomes (k right of n > 0 per cell); each resample is Binomial(n, k/n) / n."""
    k = np.atleast_1d(np.asarray(correct, dtype=np.int64))
    n = np.atleast_1d(np.asarray(n, dtype=np.int64))
    _check_counts(k, n, n_resamples, confidence)
    est = k / n
    rng = np.random.default_rng(seed)
    draws = rng.binomial(n[:, None], est[:, None], size=(len(k), n_resamples)) / n[:, None]
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(draws, [tail, 100 - tail], axis=1)
    return est, lo, hi


def _check_counts(k, n, n_resamples, confidence):
    if k.shape != n.shape or k.ndim != 1 or k.size == 0:
        raise ValueError(f"correct and n must be non-empty int arrays of one shape, got "
                         f"{k.shape}, {n.shape}")
    if (n < 1).any() or (k < 0).any() or (k > n).any():
        raise ValueError("need 0 <= correct <= n and n >= 1 in every cell")
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1
            or not 0 < confidence < 1):
        raise ValueError(f"need n_resamples >= 1 and 0 < confidence < 1, got {n_resamples}, "
                         f"{confidence}")


RUN = ["model", "vocab", "variant", "seed"]         # one run: one seed of a model x variant


def per_seed(cells_: pd.DataFrame, by: list) -> pd.DataFrame:
    """Each run's accuracy per group ``by`` of its cells: columns model, vocab, variant, seed,
    *by, correct, n, accuracy (= correct / n: that seed's own accuracy in the group)."""
    g = cells_.groupby(RUN + list(by), sort=False)[["correct", "n"]].sum().reset_index()
    return g.assign(accuracy=g["correct"] / g["n"])


def seed_summary(frame: pd.DataFrame, value: str, by: list,
                 n_resamples: int = 10_000) -> pd.DataFrame:
    """Per group ``by`` of per-seed rows: ``value`` (the mean over seeds), ``lo``, ``hi`` (95%
    bootstrap interval over seeds, ``penb.claims.seed_interval``) and ``seeds`` (how many)."""
    rows = []
    for k, g in frame.groupby(by, sort=False):
        mean, lo, hi = claims.bootstrap_interval(g[value].to_numpy(float), n_resamples=n_resamples)
        rows.append({**dict(zip(by, k)), value: mean, "lo": lo, "hi": hi, "seeds": len(g)})
    return pd.DataFrame(rows, columns=[*by, value, "lo", "hi", "seeds"])


def _by(cells_: pd.DataFrame, by: list, n_resamples: int, seed: int) -> pd.DataFrame:
    keys = ["model", "variant", "target", "disturbants", *by]
    s = seed_summary(per_seed(cells_, keys[2:]), "accuracy", keys, n_resamples)
    pooled = cells_.groupby(keys, sort=False)[["correct", "n"]].sum().reset_index()
    _, seq_lo, seq_hi = proportion_ci(pooled["correct"], pooled["n"], n_resamples, seed=seed)
    return s.merge(pooled.assign(seq_lo=seq_lo, seq_hi=seq_hi), on=keys)


def quarter_cells(cells_: pd.DataFrame, length: int) -> pd.DataFrame:
    """``cells_`` with a ``quarter`` column ("1-16", ...) of each target position."""
    return cells_.assign(quarter=quarter_label(cells_["position"].to_numpy(), length))


def quarter_seeds(cells_: pd.DataFrame, length: int) -> pd.DataFrame:
    """Each seed's accuracy per model x variant x target x disturbants x quarter (the points drawn
    over :func:`by_quarter`'s means): :func:`per_seed` of the quarter cells."""
    return per_seed(quarter_cells(cells_, length), ["target", "disturbants", "quarter"])


def position_seeds(cells_: pd.DataFrame) -> pd.DataFrame:
    """Each seed's accuracy per model x variant x target x disturbants x position."""
    return per_seed(cells_, ["target", "disturbants", "position"])


def by_quarter(cells_: pd.DataFrame, length: int, n_resamples: int = 10_000,
               seed: int = 0) -> pd.DataFrame:
    """Accuracy per model x variant x target x disturbants x quarter of target positions.

    Columns: model, variant, target, disturbants, quarter, accuracy (mean over seeds of each seed's
    accuracy), lo, hi (95% bootstrap interval over seeds), seeds, correct, n (pooled counts),
    seq_lo, seq_hi (secondary: percentile bootstrap over the pooled test sequences).
    """
    return _by(quarter_cells(cells_, length), ["quarter"], n_resamples, seed)


def by_position(cells_: pd.DataFrame, n_resamples: int = 10_000,
                seed: int = 0) -> pd.DataFrame:
    """As :func:`by_quarter`, per target position (1-based) instead of quarter."""
    return _by(cells_, ["position"], n_resamples, seed)


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


# -- the registered claims -----------------------------------------------------------------------
def harm_evidence(sh: pd.DataFrame, model: str, vocab: int, diverged: dict) -> dict:
    """Evidence of ``morita.fig3.harm.<model>`` (rule "better"): per valid vanilla seed, the
    accuracy over all targets with FREQUENT (``a``) and with RARE (``b``) disturbants; baseline
    chance 1/V; ``diverged``: the vanilla runs of ``model`` that diverged (the compared runs)."""
    v = sh[(sh["model"] == model) & (sh["variant"] == VANILLA)].sort_values("seed")
    name = model_name(model)
    return dict(a=v["acc_frequent"].tolist(), b=v["acc_rare"].tolist(), baseline=1 / vocab,
                diverged={VANILLA: int(diverged.get((model, VANILLA), 0))},
                a_name=f"vanilla {name}, FREQUENT disturbants", b_name="RARE disturbants",
                seeds=v["seed"].tolist())


def robust_evidence(sh: pd.DataFrame, model: str, diverged: dict) -> dict:
    """Evidence of ``morita.fig3.pe_robust.<model>`` (rule "better"): the vanilla harm (``a``) and
    the PE harm (``b``) per seed valid in both; baseline 0 (no harm); both variants' diverged."""
    p = paired(sh, model)
    both = VANILLA in p and PE in p                          # else no seed is valid in both
    a, b = (p[VANILLA].tolist(), p[PE].tolist()) if both else ([], [])
    name = model_name(model)
    return dict(a=a, b=b, baseline=0.0,
                diverged={v: int(diverged.get((model, v), 0)) for v in (VANILLA, PE)},
                a_name=f"vanilla {name} harm", b_name=f"PE {name} harm",
                seeds=p["seed"].tolist() if both else [])


def _absent(cfg, model: str, variants: tuple) -> str:
    """Why ``model`` cannot be graded at ``cfg`` with ``variants`` ('' when it can)."""
    if model not in cfg.cores:
        return f"not at this preset: the {model_name(model)} is not among its models"
    encodings = {variant_label(e) for e in cfg.encodings}
    lacking = [v for v in variants if v not in encodings]
    return f"not at this preset: no {' or '.join(lacking)} runs" if lacking else ""


def grade_claims(cfg, frame: pd.DataFrame, sh: pd.DataFrame) -> list:
    """Grade every claim of the chapter (``penb.claims.of_chapter("frequency")``) and record the
    exception that the registry leaves untested; returns the ``penb.claims.Grade`` list.

    frame: :func:`run`'s runs (diverged included); sh: :func:`seed_harm` over all targets.
    """
    if (sh["target"] != "all").any():
        raise ValueError("the registered measure is over all targets (seed_harm(cells, 'all'))")
    diverged = diverged_counts(frame)
    out = []
    for c in claims.of_chapter("frequency"):
        if c.key in HARM.values():
            model = next(m for m, k in HARM.items() if k == c.key)
            why = _absent(cfg, model, (VANILLA,))
            ev = None if why else harm_evidence(sh, model, cfg[f"{model}_vocab"], diverged)
        elif c.key in ROBUST.values():
            model = next(m for m, k in ROBUST.items() if k == c.key)
            why = _absent(cfg, model, (VANILLA, PE))
            ev = None if why else robust_evidence(sh, model, diverged)
        else:
            raise ValueError(f"claim {c.key} is registered for this chapter but not graded here")
        vocab = int(cfg[f"{model}_vocab"])
        out.append(claims.not_tested(c.key, why, cfg) if why else
                   claims.grade(c.key, ev, cfg, vocab=vocab))
    out.append(claims.not_tested(EXCEPTION, claims.get(EXCEPTION).not_tested, cfg))
    return out


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


# -- tables for the page ---------------------------------------------------------------------------
def registry(keys) -> pd.DataFrame:
    """The registry's entries of ``keys`` (``penb.claims``): where, statement, measure, the rule's
    wording (or, for a claim without a rule, the registry's reason) and the trivial baseline;
    index: claim."""
    rows = [(c.key, c.where, c.statement, c.measure, c.rule.text if c.rule else c.not_tested,
             c.baseline) for c in map(claims.get, keys)]
    cols = ["claim", "where", "statement", "measure", "rule", "baseline"]
    return pd.DataFrame(rows, columns=cols).set_index("claim")


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


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The run table of the page: model, vocab, variant, seed, token_accuracy, diverged,
    diverged_at, wall_s (rounded)."""
    t = frame.assign(model=frame["model"].map(model_name),
                     diverged_at=frame["diverged_at"].astype("Int64"))
    cols = ["model", "vocab", "variant", "seed", "token_accuracy", "diverged", "diverged_at",
            "wall_s"]
    return t[cols].round({"token_accuracy": 4, "wall_s": 1}).set_index(["model", "variant",
                                                                       "seed"])


def search_table(path: Optional[Path] = None) -> pd.DataFrame:
    """The regime search behind the ``quick`` preset (``search_log.csv`` beside this module,
    written by ``scripts/search_frequency.py``): one row per configuration and model tried."""
    path = Path(path) if path is not None else SEARCH_LOG
    return pd.read_csv(path, dtype={"seeds": str}, keep_default_na=False)
