"""Tables of Irie's Question 4 runs (``penb.chapters.irie.q4``): what the chapter shows of them.

* :func:`order_table`, :func:`lm_table`: per (layers, encoding) cell, the mean over valid seeds with its
  Student-t interval over seeds, each seed's value and the diverged runs; :func:`per_seed` one row per run;
* :func:`position_accuracy`: order-task token accuracy per output step;
* :func:`lm_order_use`: how much each language model's last prediction depends on the order of its context
  (the loss on the last token of a test window, as is and with the earlier inputs shuffled; exactly no
  change for one layer without PE, Question 5);
* :func:`run_table`, :func:`curves`, :func:`parameter_counts`: every run, the training curves, the model sizes.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from penb import claims, metrics, models
from penb.chapters.irie.q4 import graded, groups, label, lm_configs, lm_held_out, lm_task, order_configs, split
from penb.tasks import IGNORE
from penb.trainer import build_model, load_model


def per_seed(results, metric: str) -> pd.DataFrame:
    """One row per valid run: layers, encoding, model, seed and its ``metric`` (a key of the run's
    metrics, e.g. ``token_accuracy`` or ``perplexity``)."""
    valid, _ = split(results)
    return pd.DataFrame([{"layers": r.config["layers"], "encoding": r.config["encoding"],
                          "model": label(r.config["layers"], r.config["encoding"]),
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
    for (n, e), rs in groups(results).items():
        valid, div = split(rs)
        acc = [r.metrics["token_accuracy"] for r in valid]
        rows.append({"model": label(n, e), "layers": n, "encoding": e, "graded": (n, e) in keep,
                     "seeds": len(valid), "diverged": len(div), **_summary(acc),
                     "sequence_accuracy": float(np.mean([r.metrics["sequence_accuracy"] for r in valid]))
                     if valid else np.nan})
    return pd.DataFrame(rows).set_index("model")


def position_accuracy(results) -> pd.DataFrame:
    """Token accuracy per scored output step (1 = first output), per (layers, encoding): mean over
    valid seeds and the per-seed minimum and maximum. Columns: layers, encoding, step, accuracy, low,
    high."""
    rows = []
    for (n, e), rs in groups(results).items():
        per = []
        for r in split(rs)[0]:
            p = r.predictions()
            scored = p["targets"] != IGNORE
            correct = (p["predictions"] == p["targets"]) & scored
            steps = np.flatnonzero(scored.any(0))
            per.append(correct[:, steps].sum(0) / scored[:, steps].sum(0))
        per = np.array(per)
        for i in range(per.shape[1] if per.size else 0):
            rows.append({"layers": n, "encoding": e, "model": label(n, e), "step": i + 1,
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
    for (n, e), rs in groups(results).items():
        valid, div = split(rs)
        row = {"model": label(n, e), "layers": n, "encoding": e, "graded": (n, e) in keep,
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
    for (n, e), rs in groups(results).items():
        valid, div = split(rs)
        if not valid:
            continue
        a, b = [], []
        for r in valid:
            model = load_model(r, device="cpu")
            with torch.no_grad():
                a.append(F.cross_entropy(model(inputs)[:, -1].double(), target, reduction="none").numpy())
                b.append(F.cross_entropy(model(shuffled)[:, -1].double(), target, reduction="none").numpy())
        a, b = np.array(a), np.array(b)                                            # [seeds, n]
        est, lo, hi = metrics.bootstrap_ci((b - a).reshape(1, -1), n_resamples=2000)
        rows.append({"model": label(n, e), "layers": n, "encoding": e, "seeds": len(valid),
                     **_summary((b - a).mean(1)), "ppl_last": float(np.exp(a.mean())),
                     "ppl_shuffled": float(np.exp(b.mean())), "win_lo": lo, "win_hi": hi,
                     "max_abs_change": float(np.abs(b - a).max()), "rows": len(inputs)})
    return pd.DataFrame(rows).set_index("model")


def run_table(results: dict) -> pd.DataFrame:
    """Every run of both studies, one row each: its headline metric on its held-out set, the
    update at which a diverged run's loss turned non-finite (``diverged_at``), its training time."""
    rows = []
    for study, rs in results.items():
        for r in rs:
            m = r.metrics
            rows.append({"study": study, "model": label(r.config["layers"], r.config["encoding"]),
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
                          "model": label(r.config["layers"], r.config["encoding"]), "seed": r.config["seed"], **h}
                         for r in results for h in r.history])


def parameter_counts(cfg) -> pd.DataFrame:
    """Trainable parameters of each model of both studies (a sinusoidal PE adds none)."""
    rows = []
    for study, configs in (("order", order_configs(cfg)), ("lm", lm_configs(cfg))):
        seen = set()
        for c in configs:
            if (c["layers"], c["encoding"]) in seen:
                continue
            seen.add((c["layers"], c["encoding"]))
            n = models.count_parameters(build_model({**c, "device": "cpu"}))
            rows.append({"study": study, "model": label(c["layers"], c["encoding"]), "parameters": n})
    return pd.DataFrame(rows).pivot(index="model", columns="study", values="parameters")
