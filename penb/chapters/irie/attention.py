"""Where Question 4's trained language models without PE attend: ``irie.q4.attention``.

Irie reports (of Irie et al., 2019) that the first attention layer of such models mainly attends to the
newest input and the second roughly uniformly to the context. The runs are the two-layer language models
without PE that ``irie.q4`` grades (``penb.chapters.irie.q4``); :func:`maps` reads each layer's attention
weights on held-out test paragraphs, :func:`summary` reduces them to the two numbers the rule reads. A claim
about trained models: the two numbers are the levels protocol 4's doubling test reads, on the same model
trained again at half the updates (``q4.half_configs``, graded by ``q4_grading.grade_trained``).

Shapes: inputs LongTensor[B, T]; weights per layer Tensor[B, H, T, T] (query, key), causal, rows summing to 1.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from penb import claims
from penb.chapters.irie import q4
from penb.chapters.irie.budgets import run_cost
from penb.claims import training
from penb.transformer import attention_mask
from penb.trainer import load_model

CLAIM = "irie.q4.attention"
WINDOWS = 128                     # held-out paragraphs read per run (all of them when the split has fewer)


@torch.no_grad()
def maps(model, inputs: torch.Tensor) -> list[torch.Tensor]:
    """The attention weights of every layer of a ``penb.models.SequenceModel`` with a transformer core on
    ``inputs`` [B, T]: a list of [B, H, T, T], the input each layer's attention reads computed as its block
    does (pre-norm: the block's first LayerNorm)."""
    x = model.input_vectors(inputs)
    mask = attention_mask("causal", inputs.shape[1], x.device)
    out = []
    for block in model.core.blocks:
        out.append(block.attn.weights(x if block.norm == "post" else block.ln1(x), mask))
        x = block(x, mask)
    return out


def summary(weights: torch.Tensor, lengths: torch.Tensor) -> dict:
    """One layer's ``weights`` [B, H, T, T] over queries t = 2..length (1-based; the first query can only see
    itself): ``newest``, the mean weight on the query's own position; ``entropy``, the mean of each row's
    entropy over log t (1 = uniform over the t positions it sees)."""
    w = weights.double()
    B, H, T, _ = w.shape
    diag = torch.diagonal(w, dim1=-2, dim2=-1)                                   # [B, H, T]
    ent = -(w * torch.log(w.clamp_min(1e-300))).sum(-1)                          # [B, H, T]
    t = torch.arange(1, T + 1, dtype=torch.float64)
    norm = ent / torch.log(t).clamp_min(1e-300)
    keep = (torch.arange(T)[None] < lengths[:, None]) & (torch.arange(T)[None] >= 1)    # [B, T]
    keep = keep[:, None, :].expand(B, H, T)
    return {"newest": float(diag[keep].mean()), "entropy": float(norm[keep].mean()),
            "uniform_newest": float((1 / t[None, None, :].expand(B, H, T))[keep].mean())}


def seed_table(results: dict, cfg) -> list[dict]:
    """Per valid two-layer language model without PE (the cell ``irie.q4`` grades): its seed and each layer's
    :func:`summary` on up to :data:`WINDOWS` held-out test paragraphs."""
    n = claims.get("irie.q4").extra["layers"]
    runs = [r for r in results["lm"] if r.config["layers"] == n and r.config["encoding"] == q4.NONE]
    valid, _ = q4.split(runs)
    if not valid:
        return []
    task = q4.lm_task(cfg)
    batch = task.held_out(min(WINDOWS, task.test_paragraphs), torch.Generator())
    rows = []
    for r in valid:
        model = load_model(r, device="cpu").eval()
        layers = [summary(w, batch.lengths) for w in maps(model, batch.inputs)]
        rows.append({"seed": int(r.config["seed"]), "layers": layers})
    return rows


def evidence(results: dict, cfg) -> dict:
    """The evidence of the "check" rule: per seed, layer 1's weight on the newest token and layer 2's normalised
    entropy against the rule's thresholds."""
    p = claims.get(CLAIM).rule.params
    rows = seed_table(results, cfg)
    n = claims.get("irie.q4").extra["layers"]
    dead = q4.split([r for r in results["lm"] if r.config["layers"] == n and r.config["encoding"] == q4.NONE])[1]
    newest = [row["layers"][0]["newest"] for row in rows]
    entropy = [row["layers"][1]["entropy"] for row in rows]
    newest_2 = [row["layers"][1]["newest"] for row in rows]
    first, second = bool(rows) and all(x > p["newest"] for x in newest), bool(rows) and all(
        x >= p["entropy"] for x in entropy)
    uniform = rows[0]["layers"][0]["uniform_newest"] if rows else math.nan
    ev = {"passed": first and second, "partial": first or second, "seeds": [row["seed"] for row in rows],
          "newest": newest, "entropy": entropy, "diverged": len(dead),
          # what protocol 4's doubling test reads of a check (penb.claims.doubling): the per-seed levels
          "levels": {"layer 1's weight on the newest token": newest, "layer 2's entropy": entropy},
          "level_seeds": [row["seed"] for row in rows],
          "detail": (f"layer 1's weight on the newest token per seed: {', '.join(f'{x:.2f}' for x in newest)} "
                     f"(uniform attention: {uniform:.2f}); layer 2's normalised entropy: "
                     f"{', '.join(f'{x:.2f}' for x in entropy)} (1 = uniform); layer 2's weight on the newest "
                     f"token {', '.join(f'{x:.2f}' for x in newest_2)}"),
          "why": "; ".join(w for w, bad in (
              (f"layer 1 gives the newest token at most {p['newest']:.0%} on some seed", not first),
              (f"layer 2's entropy under {p['entropy']} on some seed", not second)) if bad)}
    if dead:
        ev["inconclusive"] = f"{len(dead)} diverged run(s)"
    elif len(rows) < p["min_seeds"]:
        ev["inconclusive"] = f"{len(rows)} valid seeds, fewer than the {p['min_seeds']} the rule needs"
    else:
        ppl = [float(r.metrics["perplexity"]) for r in results["lm"] if r.config["layers"] == n
               and r.config["encoding"] == q4.NONE and not r.diverged]
        if np.mean(ppl) >= cfg.lm_vocab * (1 - p["baseline_margin"]):
            ev["inconclusive"] = "the language model sits at the uniform model's perplexity: nothing was learned"
    return ev


def grade(results: dict, cfg) -> claims.Grade:
    """``irie.q4.attention`` graded on the language-model runs of ``q4.run`` (not tested where ``cfg`` has no
    two-layer models, or no such language model without PE ran), with the models' training state on their
    training loss (protocol 3's record); ``steps`` gives protocol 4 its budgets (lm_steps / 2, lm_steps)."""
    why = q4.lm_missing(cfg)
    n = claims.get("irie.q4").extra["layers"]
    mine = [r for r in results["lm"] if r.config["layers"] == n and r.config["encoding"] == q4.NONE]
    if why or not mine:
        return claims.not_tested(CLAIM, f"not at this preset: {why or 'no two-layer language model without PE'}",
                                 cfg)
    valid = q4.split(mine)[0]
    state = training.of_results({f"{n}-layer LM without PE": valid}, metric="loss")
    return claims.grade(CLAIM, evidence(results, cfg), cfg, training=state, next_cost=run_cost(valid),
                        lm_seeds=list(cfg.lm_seeds), lm_steps=cfg.lm_steps, steps=cfg.lm_steps)
