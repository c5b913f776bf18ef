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

from penb import metrics, runs
from penb.executors import LocalExecutor, ProcessExecutor
from penb.tasks import IGNORE

ORDER_TASKS = ("reverse", "sort", "predecessor", "reverse_add")
NONE = "none"


def _common(cfg, layers: int, encoding: str, seed: int) -> dict:
    return dict(core="transformer", layers=layers, encoding=encoding, heads=cfg.heads, norm=cfg.norm,
                seed=seed, device=cfg.device, warmup=cfg.q4_warmup, dtype="float32")


def variants(cfg) -> list[tuple[int, str]]:
    """(layers, encoding) pairs in display order: each depth without PE, then with ``cfg.encoding``."""
    return [(n, e) for n in cfg.q4_layers for e in (NONE, cfg.encoding)]


def order_configs(cfg) -> list[dict]:
    """Run configs of the order study: ``variants`` x ``q4_seeds``."""
    return [{**_common(cfg, n, e, s), "task": cfg.q4_task, "vocab_size": cfg.q4_vocab, "length": cfg.q4_length,
             "hidden": cfg.q4_dim, "steps": cfg.q4_steps, "batch_size": cfg.q4_batch, "lr": cfg.q4_lr,
             "held_out": cfg.q4_held_out, "checkpoint_every": cfg.q4_steps, "log_every": max(cfg.q4_steps // 50, 1)}
            for s in cfg.q4_seeds for n, e in variants(cfg)]


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
    """Run configs of the language-model study: ``variants`` x ``lm_seeds``."""
    held = lm_held_out(cfg)
    return [{**_common(cfg, n, e, s), "task": "lm", "task_options": lm_task_options(cfg), "vocab_size": cfg.lm_vocab,
             "length": cfg.lm_length, "hidden": cfg.q4_dim, "steps": cfg.lm_steps, "batch_size": cfg.lm_batch,
             "lr": cfg.q4_lr, "held_out": held, "checkpoint_every": cfg.lm_steps,
             "log_every": max(cfg.lm_steps // 50, 1)}
            for s in cfg.lm_seeds for n, e in variants(cfg)]


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
def _label(layers: int, encoding: str) -> str:
    return f"{layers} layer{'s' if layers > 1 else ''}, {'no PE' if encoding == NONE else encoding + ' PE'}"


def _groups(results) -> dict[tuple[int, str], list]:
    out: dict = {}
    for r in results:
        out.setdefault((r.config["layers"], r.config["encoding"]), []).append(r)
    return out


def order_table(results, cfg) -> pd.DataFrame:
    """One row per (layers, encoding): test token accuracy (mean of seeds, 95% bootstrap CI over seeds),
    sequence accuracy, the per-seed accuracies and the order-blind ceiling (``reverse`` only)."""
    ceiling = blind_ceiling(cfg.q4_vocab, cfg.q4_length) if cfg.q4_task == "reverse" else np.nan
    rows = []
    for (n, e), rs in _groups(results).items():
        per_seed = np.array([r.metrics["token_accuracy"] for r in rs])
        est, lo, hi = metrics.bootstrap_ci(per_seed[:, None], level="seed") if len(rs) > 1 else (per_seed[0],) * 3
        rows.append({"model": _label(n, e), "layers": n, "encoding": e, "token_accuracy": est, "ci_low": lo,
                     "ci_high": hi, "sequence_accuracy": float(np.mean([r.metrics["sequence_accuracy"] for r in rs])),
                     "per_seed": ", ".join(f"{a:.3f}" for a in per_seed), "seeds": len(rs),
                     "above_blind_ceiling": bool(per_seed.min() > ceiling) if ceiling == ceiling else None})
    return pd.DataFrame(rows).set_index("model")


def position_accuracy(results) -> pd.DataFrame:
    """Token accuracy per scored output step (1 = first output), per (layers, encoding): mean over seeds
    and the per-seed minimum and maximum. Columns: layers, encoding, step, accuracy, low, high."""
    rows = []
    for (n, e), rs in _groups(results).items():
        per = []
        for r in rs:
            p = r.predictions()
            scored = p["targets"] != IGNORE
            correct = (p["predictions"] == p["targets"]) & scored
            steps = np.flatnonzero(scored.any(0))
            per.append(correct[:, steps].sum(0) / scored[:, steps].sum(0))
        per = np.array(per)
        for i in range(per.shape[1]):
            rows.append({"layers": n, "encoding": e, "model": _label(n, e), "step": i + 1,
                         "accuracy": per[:, i].mean(), "low": per[:, i].min(), "high": per[:, i].max()})
    return pd.DataFrame(rows)


def lm_table(results) -> pd.DataFrame:
    """One row per (layers, encoding): test perplexity exp(total nats / tokens) pooled over seeds, a 95%
    bootstrap CI over test paragraphs (seeds pooled), the per-seed perplexities and the token count."""
    rows = []
    for (n, e), rs in _groups(results).items():
        nll, count = [], []
        for r in rs:
            p = r.predictions()
            nll.append(p["nll"])
            count.append((p["targets"] != IGNORE).sum(1))
        est, lo, hi = metrics.bootstrap_ci(np.array(nll), np.array(count), n_resamples=2000)
        rows.append({"model": _label(n, e), "layers": n, "encoding": e, "perplexity": float(np.exp(est)),
                     "ci_low": float(np.exp(lo)), "ci_high": float(np.exp(hi)),
                     "per_seed": ", ".join(f"{r.metrics['perplexity']:.2f}" for r in rs), "seeds": len(rs),
                     "test_tokens": int(np.sum(count[0])), "test_paragraphs": len(count[0])})
    return pd.DataFrame(rows).set_index("model")


def lm_order_use(results, cfg, seed: int = 0) -> pd.DataFrame:
    """How much each language model's last prediction depends on the order of its context.

    Rows: the held-out test windows with all T inputs real and a scored last target. For each, the
    cross-entropy (nats) of the last target (a) as is and (b) with inputs 1..T-1 permuted at random
    (one permutation per row from ``seed``, the same for every model; the last input stays). Columns:
    ``ppl_last`` = exp(mean a), ``ppl_shuffled`` = exp(mean b), ``nats_lost`` = mean(b - a) with a 95%
    bootstrap CI over rows (seeds pooled), ``max_abs_change`` = max |b - a|, ``rows``.
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
        a, b = [], []
        for r in rs:
            model = r.load_model(device="cpu")
            with torch.no_grad():
                a.append(F.cross_entropy(model(inputs)[:, -1].double(), target, reduction="none"))
                b.append(F.cross_entropy(model(shuffled)[:, -1].double(), target, reduction="none"))
        a, b = torch.cat(a).numpy(), torch.cat(b).numpy()
        est, lo, hi = metrics.bootstrap_ci((b - a)[None], n_resamples=2000)
        rows.append({"model": _label(n, e), "layers": n, "encoding": e, "ppl_last": float(np.exp(a.mean())),
                     "ppl_shuffled": float(np.exp(b.mean())), "nats_lost": est, "ci_low": lo, "ci_high": hi,
                     "max_abs_change": float(np.abs(b - a).max()), "rows": len(inputs), "seeds": len(rs)})
    return pd.DataFrame(rows).set_index("model")


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

