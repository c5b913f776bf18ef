"""Irie's Question 4 as an experiment: do trained causal Transformers without PE pick up word order?

Two studies, each a grid of depth (``q4_layers``) x encoding (``none`` / the chapter's ``encoding``,
ADDED to the token embedding) x seeds, trained by ``penb.train`` (``core="transformer"``) and stored
and reused by ``penb.runs.sweep``:

* **order**: a synthetic task of the RNN chapters (``q4_task``, default ``reverse``: read x_1..x_L,
  then write them reversed). Test token accuracy on held-out sequences, with a bootstrap CI over
  seeds. For ``reverse`` the order-blind ceiling :func:`blind_ceiling` is the best token accuracy
  any predictor can reach that sees only the multiset of the inputs, which is all a one-layer causal
  Transformer without PE sees at an output step (Irie's Question 5).
* **lm**: small language models on the ``lm`` task (``penb.tasks.lm``): trained on the WikiText
  split ``lm_train_split``, perplexity on the split ``lm_test_split``, with a bootstrap CI over test
  paragraphs (seeds pooled). :func:`lm_order_use` measures how much each trained model's prediction
  depends on the order of its context: the loss on the last token of a test window, as is and with
  the earlier inputs shuffled (exactly no change for one layer without PE, Question 5).

Functions return plain data (lists of run configs, RunResults, DataFrames).
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from penb import claims, metrics, runs
from penb.executors import LocalExecutor, ProcessExecutor
from penb.tasks import IGNORE

ORDER_TASKS = ("reverse", "sort", "predecessor", "reverse_add")
NONE = "none"
CLAIM = "irie.q4"


def _common(cfg, layers: int, encoding: str, seed: int) -> dict:
    return dict(core="transformer", layers=layers, encoding=encoding, heads=cfg.heads, norm=cfg.norm,
                seed=seed, device=cfg.device, warmup=cfg.q4_warmup, dtype="float32")


def variants(cfg) -> list[tuple[int, str]]:
    """(layers, encoding) pairs in display order: each depth without PE, then with ``cfg.encoding``."""
    return [(n, e) for n in cfg.q4_layers for e in (NONE, cfg.encoding)]


def graded(cfg, study: str) -> list[tuple[int, str]]:
    """The (layers, encoding) cells of ``study`` ("order" or "lm") that the claim ``irie.q4`` grades:
    the two-layer model without PE on the order task; without and with PE as language models."""
    n = claims.get(CLAIM).extra["layers"]
    if n not in cfg.q4_layers:
        return []
    return [(n, NONE)] if study == "order" else [(n, NONE), (n, cfg.encoding)]


def cells(cfg, study: str) -> list[tuple[int, str, tuple]]:
    """(layers, encoding, seeds) of every cell of ``study``: a graded cell (:func:`graded`) runs on
    every seed of the study (``q4_seeds`` or ``lm_seeds``), the others as ``q4_context`` says."""
    seeds = tuple(cfg.q4_seeds if study == "order" else cfg.lm_seeds)
    context = {"all": seeds, "first": seeds[:1], "none": ()}[cfg.q4_context]
    keep = graded(cfg, study)
    out = [(n, e, seeds if (n, e) in keep else context) for n, e in variants(cfg)]
    return [c for c in out if c[2]]


def order_configs(cfg) -> list[dict]:
    """Run configs of the order study: one per seed of each of :func:`cells`."""
    return [{**_common(cfg, n, e, s), "task": cfg.q4_task, "vocab_size": cfg.q4_vocab, "length": cfg.q4_length,
             "hidden": cfg.q4_dim, "steps": cfg.q4_steps, "batch_size": cfg.q4_batch, "lr": cfg.q4_lr,
             "held_out": cfg.q4_held_out, "checkpoint_every": cfg.q4_steps, "log_every": max(cfg.q4_steps // 50, 1)}
            for n, e, seeds in cells(cfg, "order") for s in seeds]


def lm_task_options(cfg) -> dict:
    return {"corpus": cfg.lm_corpus, "train_split": cfg.lm_train_split, "test_split": cfg.lm_test_split,
            "crop": cfg.lm_crop}


def lm_task(cfg):
    """The ``lm`` task of the chapter (loads the corpus and the tokenizer on first use)."""
    from penb.tasks import make_task

    return make_task("lm", cfg.lm_vocab, cfg.lm_length, **lm_task_options(cfg))


def lm_held_out(cfg) -> int:
    """Test paragraphs scored: ``lm_held_out``, or all usable ones when it is 0."""
    return cfg.lm_held_out or lm_task(cfg).test_paragraphs


def lm_configs(cfg) -> list[dict]:
    """Run configs of the language-model study: one per seed of each of :func:`cells`."""
    held = lm_held_out(cfg)
    return [{**_common(cfg, n, e, s), "task": "lm", "task_options": lm_task_options(cfg), "vocab_size": cfg.lm_vocab,
             "length": cfg.lm_length, "hidden": cfg.q4_dim, "steps": cfg.lm_steps, "batch_size": cfg.lm_batch,
             "lr": cfg.q4_lr, "held_out": held, "checkpoint_every": cfg.lm_steps,
             "log_every": max(cfg.lm_steps // 50, 1)}
            for n, e, seeds in cells(cfg, "lm") for s in seeds]


def run(cfg, progress: bool = True) -> dict[str, list]:
    """Train (or reuse) every run of both studies in one sweep; {"order": [...], "lm": [...]} RunResults.

    ``cfg.workers`` > 1 runs them in that many processes with one torch thread each; 1 runs them here.
    The language-model runs go first (they are the longest), so the pool stays busy to the end.
    """
    order, lm = order_configs(cfg), lm_configs(cfg)
    executor = ProcessExecutor(workers=cfg.workers, threads=1) if cfg.workers > 1 else LocalExecutor(threads=1)
    results = runs.sweep(lm + order, executor=executor, progress=progress)
    return {"lm": results[:len(lm)], "order": results[len(lm):]}


# -- the order-blind ceiling ---------------------------------------------------------------------------
def blind_ceiling(vocab_size: int, length: int) -> float:
    """E[max_v count_v] / L for L tokens drawn uniformly from V: the best token accuracy on ``reverse``
    of any predictor that sees only the multiset of the inputs (and the output step).

    Given the multiset, every arrangement is equally likely, so the target of any output step is v
    with probability count_v / L; the best guess is a most frequent token. Exact, by
    P(max <= m) = L! / V^L [x^L] (sum_{j<=m} x^j / j!)^V.
    """
    if vocab_size < 1 or length < 1:
        raise ValueError(f"need vocab_size >= 1 and length >= 1, got {vocab_size}, {length}")
    if vocab_size * length > EXACT_LIMIT:
        return blind_ceiling_float(vocab_size, length)
    expected = Fraction(0)
    for m in range(length):                       # E[max] = sum_{m >= 0} P(max > m)
        base = [Fraction(1, factorial(j)) for j in range(m + 1)]
        poly = [Fraction(1)]                      # (sum_{j <= m} x^j / j!)^k, terms up to x^L
        for _ in range(vocab_size):
            new = [Fraction(0)] * min(len(poly) + m, length + 1)
            for i, a in enumerate(poly):
                for j, b in enumerate(base[:length + 1 - i]):
                    new[i + j] += a * b
            poly = new
        at_most = poly[length] * factorial(length) / Fraction(vocab_size) ** length if len(poly) > length else 0
        expected += 1 - at_most
    return float(expected / length)


# -- tables ----------------------------------------------------------------------------------------------
EXACT_LIMIT = 20_000    # vocab_size x length above which blind_ceiling uses the float method (exact: minutes)


def blind_ceiling_float(vocab_size: int, length: int) -> float:
    """:func:`blind_ceiling` in float64, for large V and L (paper sizes): the counts of L uniform draws
    over V tokens are V independent Poisson(L/V) counts conditioned on their sum being L, so
    P(max <= m) = P(N <= m)^V P(S = L | every N_i <= m) / P(S = L), the middle term the L-th entry of the
    V-fold convolution of the truncated Poisson pmf (by repeated squaring, entries above L dropped)."""
    from scipy.stats import poisson

    lam = length / vocab_size
    log_pl = poisson.logpmf(length, length)                           # P(S = L), S ~ Poisson(L)
    expected = 0.0
    for m in range(length):
        pmf = poisson.pmf(np.arange(min(m, length) + 1), lam)        # [m + 1]
        mass = pmf.sum()
        base, power, k = pmf / mass, np.array([1.0]), vocab_size
        while k:
            if k & 1:
                power = np.convolve(power, base)[:length + 1]
            k >>= 1
            if k:
                base = np.convolve(base, base)[:length + 1]
        at_l = power[length] if len(power) > length else 0.0
        p_at_most = float(np.exp(vocab_size * np.log(mass) - log_pl) * at_l) if at_l > 0 else 0.0
        expected += 1 - min(p_at_most, 1.0)
    return expected / length


def _label(layers: int, encoding: str) -> str:
    return f"{layers} layer{'s' if layers > 1 else ''}, {'no PE' if encoding == NONE else encoding + ' PE'}"


def _groups(results) -> dict[tuple[int, str], list]:
    out: dict = {}
    for r in results:
        out.setdefault((r.config["layers"], r.config["encoding"]), []).append(r)
    return out


def _split(rs) -> tuple[list, list]:
    return runs.split_diverged(sorted(rs, key=lambda r: r.config["seed"]))


def per_seed(results, metric: str) -> pd.DataFrame:
    """One row per valid run: layers, encoding, model, seed and its ``metric`` (a key of the run's
    metrics, e.g. ``token_accuracy`` or ``perplexity``)."""
    valid, _ = _split(results)
    return pd.DataFrame([{"layers": r.config["layers"], "encoding": r.config["encoding"],
                          "model": _label(r.config["layers"], r.config["encoding"]),
                          "seed": r.config["seed"], metric: r.metrics[metric]} for r in valid])


def _summary(values) -> dict:
    mean, lo, hi = claims.seed_interval(values)
    return {"mean": mean, "lo": lo, "hi": hi, "per_seed": ", ".join(f"{v:.3f}" for v in values),
            "values": [float(v) for v in values]}


def order_table(results, cfg) -> pd.DataFrame:
    """One row per (layers, encoding): valid seeds and diverged runs, test token accuracy (``mean``
    over valid seeds with its 95% bootstrap interval over seeds, ``lo``/``hi``), each seed's value,
    the mean sequence accuracy and whether the claim grades the cell."""
    keep = graded(cfg, "order")
    rows = []
    for (n, e), rs in _groups(results).items():
        valid, div = _split(rs)
        acc = [r.metrics["token_accuracy"] for r in valid]
        rows.append({"model": _label(n, e), "layers": n, "encoding": e, "graded": (n, e) in keep,
                     "seeds": len(valid), "diverged": len(div), **_summary(acc),
                     "sequence_accuracy": float(np.mean([r.metrics["sequence_accuracy"] for r in valid]))
                     if valid else np.nan})
    return pd.DataFrame(rows).set_index("model")


def position_accuracy(results) -> pd.DataFrame:
    """Token accuracy per scored output step (1 = first output), per (layers, encoding): mean over
    valid seeds and the per-seed minimum and maximum. Columns: layers, encoding, step, accuracy, low,
    high."""
    rows = []
    for (n, e), rs in _groups(results).items():
        per = []
        for r in _split(rs)[0]:
            p = r.predictions()
            scored = p["targets"] != IGNORE
            correct = (p["predictions"] == p["targets"]) & scored
            steps = np.flatnonzero(scored.any(0))
            per.append(correct[:, steps].sum(0) / scored[:, steps].sum(0))
        per = np.array(per)
        for i in range(per.shape[1] if per.size else 0):
            rows.append({"layers": n, "encoding": e, "model": _label(n, e), "step": i + 1,
                         "accuracy": per[:, i].mean(), "low": per[:, i].min(), "high": per[:, i].max()})
    return pd.DataFrame(rows)


def lm_table(results, cfg) -> pd.DataFrame:
    """One row per (layers, encoding): test perplexity, the ``mean`` over valid seeds of each run's
    perplexity with its 95% bootstrap interval over seeds (``lo``/``hi``), each seed's value, the
    diverged runs; then, secondary, the perplexity of the seeds' test tokens pooled with a 95%
    bootstrap interval over test paragraphs (``pooled``, ``para_lo``/``para_hi``), the token and
    paragraph counts."""
    keep = graded(cfg, "lm")
    rows = []
    for (n, e), rs in _groups(results).items():
        valid, div = _split(rs)
        row = {"model": _label(n, e), "layers": n, "encoding": e, "graded": (n, e) in keep,
               "seeds": len(valid), "diverged": len(div),
               **_summary([r.metrics["perplexity"] for r in valid])}
        if valid:
            nll, count = [], []
            for r in valid:
                p = r.predictions()
                nll.append(p["nll"])
                count.append((p["targets"] != IGNORE).sum(1))
            est, lo, hi = metrics.bootstrap_ci(np.array(nll), np.array(count), n_resamples=2000)
            row.update(pooled=float(np.exp(est)), para_lo=float(np.exp(lo)), para_hi=float(np.exp(hi)),
                       test_tokens=int(np.sum(count[0])), test_paragraphs=len(count[0]))
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def lm_order_use(results, cfg, seed: int = 0) -> pd.DataFrame:
    """How much each language model's last prediction depends on the order of its context.

    Rows: the held-out test windows with all T inputs real and a scored last target. For each, the
    cross-entropy (nats) of the last target (a) as is and (b) with inputs 1..T-1 permuted at random
    (one permutation per row from ``seed``, the same for every model; the last input stays). Per
    (layers, encoding): ``mean`` = the mean over valid seeds of each run's mean(b - a), with its 95%
    bootstrap interval over seeds (``lo``/``hi``) and each seed's value; ``ppl_last`` = exp(mean a)
    and ``ppl_shuffled`` = exp(mean b) over the seeds' windows pooled; ``win_lo``/``win_hi`` a 95%
    bootstrap interval of mean(b - a) over the pooled windows (secondary); ``max_abs_change`` =
    max |b - a|; ``rows`` windows per seed.
    """
    task = lm_task(cfg)
    held = task.held_out(lm_held_out(cfg), torch.Generator())
    T = task.length
    keep = (held.lengths == T) & (held.targets[:, -1] != IGNORE)
    inputs, target = held.inputs[keep], held.targets[keep, -1]                     # [n, T], [n]
    perm = torch.argsort(torch.rand(len(inputs), T - 1, generator=torch.Generator().manual_seed(seed)), 1)
    shuffled = inputs.clone()
    shuffled[:, :-1] = inputs[:, :-1].gather(1, perm)
    rows = []
    for (n, e), rs in _groups(results).items():
        valid, div = _split(rs)
        if not valid:
            continue
        a, b = [], []
        for r in valid:
            model = r.load_model(device="cpu")
            with torch.no_grad():
                a.append(F.cross_entropy(model(inputs)[:, -1].double(), target, reduction="none").numpy())
                b.append(F.cross_entropy(model(shuffled)[:, -1].double(), target, reduction="none").numpy())
        a, b = np.array(a), np.array(b)                                            # [seeds, n]
        est, lo, hi = metrics.bootstrap_ci((b - a).reshape(1, -1), n_resamples=2000)
        rows.append({"model": _label(n, e), "layers": n, "encoding": e, "seeds": len(valid),
                     **_summary((b - a).mean(1)), "ppl_last": float(np.exp(a.mean())),
                     "ppl_shuffled": float(np.exp(b.mean())), "win_lo": lo, "win_hi": hi,
                     "max_abs_change": float(np.abs(b - a).max()), "rows": len(inputs)})
    return pd.DataFrame(rows).set_index("model")


# -- grading -----------------------------------------------------------------------------------
def missing(cfg) -> str:
    """Why ``cfg`` cannot test ``irie.q4`` ("" when it can)."""
    n = claims.get(CLAIM).extra["layers"]
    if n not in cfg.q4_layers:
        return f"the claim compares {n}-layer models, and q4_layers is {cfg.q4_layers}"
    if cfg.q4_task != "reverse":
        return (f"the order-blind ceiling is derived for reverse only, and q4_task is "
                f"{cfg.q4_task!r}")
    return ""


def ceiling_margin(cfg) -> tuple[float, float]:
    """(the order-blind ceiling of ``reverse``, 4 binomial standard deviations of a token accuracy
    at that level on the held-out set): a seed counts as above the ceiling beyond their sum."""
    c = blind_ceiling(cfg.q4_vocab, cfg.q4_length)
    return c, binomial_margin(c, cfg.q4_held_out * cfg.q4_length)


def binomial_margin(ceiling: float, n_tokens: int) -> float:
    """4 binomial standard deviations of a token accuracy at ``ceiling`` over ``n_tokens`` test tokens."""
    return 4 * (ceiling * (1 - ceiling) / n_tokens) ** 0.5


def evidence(results: dict, cfg) -> dict:
    """The evidence of ``irie.q4``'s "check" rule from the runs of :func:`run`: per seed, the
    two-layer model without PE's order-task token accuracy against the order-blind ceiling, and the
    two-layer language models' perplexities without and with PE (seeds valid in both); diverged
    runs of these cells, fewer than ``min_seeds`` valid seeds, or a language model with PE at the
    uniform model's perplexity (the claim's trivial baseline, within ``baseline_margin``) make it
    inconclusive."""
    c = claims.get(CLAIM)
    n, limit, need = c.extra["layers"], c.extra["ppl_ratio"], c.extra["min_seeds"]
    mine: dict = {}
    for s in ("order", "lm"):
        for r in results[s]:
            mine.setdefault((s, r.config["layers"], r.config["encoding"]), []).append(r)
    diverged = {f"{s} {_label(n_, e)}": len(_split(mine.get((s, n_, e), []))[1])
                for s in ("order", "lm") for n_, e in graded(cfg, s)}
    order = _split(mine.get(("order", n, NONE), []))[0]
    acc = {r.config["seed"]: r.metrics["token_accuracy"] for r in order}
    lm = {e: {r.config["seed"]: r.metrics["perplexity"] for r in _split(mine.get(("lm", n, e), []))[0]}
          for e in (NONE, cfg.encoding)}
    paired = sorted(set(lm[NONE]) & set(lm[cfg.encoding]))
    none_, pe = [lm[NONE][s] for s in paired], [lm[cfg.encoding][s] for s in paired]
    ceiling, margin = ceiling_margin(cfg)
    above = [a > ceiling + margin for a in acc.values()]
    m_none, m_pe = (float(np.mean(none_)), float(np.mean(pe))) if paired else (np.nan, np.nan)
    ratio = m_none / m_pe
    order_ok, lm_ok = bool(acc) and all(above), ratio <= limit
    mean, lo, hi = claims.seed_interval(list(acc.values()))
    ev = {"passed": order_ok and lm_ok, "order_accuracy": list(acc.values()), "order_seeds": list(acc),
          "ceiling": ceiling, "margin": margin, "ppl_none": none_, "ppl_pe": pe, "lm_seeds": paired,
          "diverged": diverged,
          "detail": (f"order task, {n} layers without PE: token accuracy {claims.fmt(mean, lo, hi)} over "
                     f"{len(acc)} seeds, above the order-blind ceiling {ceiling:.3f} (+{margin:.3f} test "
                     f"noise) in {sum(above)}; language model, {n} layers: perplexity without PE "
                     f"{m_none:.2f}, with PE {m_pe:.2f} (ratio {ratio:.3f}, rule <= "
                     f"{limit:.2f}) over {len(paired)} seeds"),
          "why": "; ".join(w for w, bad in (
              (f"only {sum(above)} of {len(acc)} seeds above the ceiling on the order task", not order_ok),
              (f"perplexity without PE {ratio - 1:+.1%} against PE, beyond {limit - 1:.0%}", not lm_ok)) if bad)}
    uniform = float(cfg.lm_vocab)                  # the trivial baseline: a uniform model's perplexity
    if any(diverged.values()):
        ev["inconclusive"] = "diverged runs: " + ", ".join(f"{k} {v}" for k, v in diverged.items() if v)
    elif min(len(acc), len(paired)) < need:
        ev["inconclusive"] = (f"{min(len(acc), len(paired))} valid seeds, fewer than the {need} the rule "
                              "needs")
    elif m_pe >= uniform * (1 - c.extra["baseline_margin"]):
        ev["inconclusive"] = (f"the language model with PE sits at the uniform model's perplexity "
                              f"({uniform:.0f}): nothing was learned, so 'within {limit - 1:.0%}' decides "
                              "nothing")
    ev["baseline"] = uniform
    return ev


def grade(results: dict, cfg) -> claims.Grade:
    """``irie.q4`` graded on the runs of :func:`run` (or not tested where ``cfg`` cannot test it)."""
    why = missing(cfg)
    if why:
        return claims.not_tested(CLAIM, f"not at this preset: {why}", cfg)
    return claims.grade(CLAIM, evidence(results, cfg), cfg, q4_seeds=list(cfg.q4_seeds),
                        lm_seeds=list(cfg.lm_seeds), q4_steps=cfg.q4_steps, lm_steps=cfg.lm_steps)


def run_table(results: dict) -> pd.DataFrame:
    """Every run of both studies, one row each: its headline metric on its held-out set, the
    update at which a diverged run's loss turned non-finite (``diverged_at``), its training time."""
    rows = []
    for study, rs in results.items():
        for r in rs:
            m = r.metrics
            rows.append({"study": study, "model": _label(r.config["layers"], r.config["encoding"]),
                         "seed": r.config["seed"], "steps": r.config["steps"],
                         "token_accuracy": m.get("token_accuracy", np.nan), "perplexity": m.get("perplexity", np.nan),
                         "diverged_at": r.divergence.get("step", "") if r.diverged else "",
                         "wall_s": r.wall_s})
    out = pd.DataFrame(rows).round({"token_accuracy": 4, "perplexity": 2, "wall_s": 1})
    return out.set_index(["study", "model", "seed"])


def curves(results) -> pd.DataFrame:
    """Training curves: columns layers, encoding, model, seed, step, loss, accuracy (means over
    ``log_every`` updates, from each run's history)."""
    return pd.DataFrame([{"layers": r.config["layers"], "encoding": r.config["encoding"],
                          "model": _label(r.config["layers"], r.config["encoding"]), "seed": r.config["seed"], **h}
                         for r in results for h in r.history])


def parameter_counts(cfg) -> pd.DataFrame:
    """Trainable parameters of each model of both studies (a sinusoidal PE adds none)."""
    from penb import models, train

    rows = []
    for study, configs in (("order", order_configs(cfg)), ("lm", lm_configs(cfg))):
        seen = set()
        for c in configs:
            if (c["layers"], c["encoding"]) in seen:
                continue
            seen.add((c["layers"], c["encoding"]))
            n = models.count_parameters(train.build_model({**c, "device": "cpu"}))
            rows.append({"study": study, "model": _label(c["layers"], c["encoding"]), "parameters": n})
    return pd.DataFrame(rows).pivot(index="model", columns="study", values="parameters")

