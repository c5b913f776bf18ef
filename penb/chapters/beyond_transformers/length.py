"""Length generalisation: a model trained on reversal at length L, tested on reversal at a longer length.

``extended_model(result, length)`` rebuilds a stored run's model for ``length`` (its encoding table now
covering the longer sequence's ``2 length`` positions) and loads the trained weights. Only encodings
whose rows do not depend on the table's size can be extended (``none``; ``sinusoidal``, Eq. 1-2): the
trained rows are checked to equal the rebuilt table's first rows, so nothing is silently changed.
``score(result, length, n, seed)`` draws ``n`` sequences of the longer task from a generator of its own
(``derive_seed(seed, "length-<length>")``) and returns the token accuracy and the accuracy per output
position. ``length_frame(frame, results, cfg)`` scores every run of a chapter table at the smallest vocabulary
at L and at ``test_factor`` x L.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from penb.trainer import build_model
from penb import runs
from penb.run_config import derive_seed
from penb.tasks import IGNORE, make_task

EXTENDABLE = ("none", "sinusoidal")
MODEL = "model"                     # the chapter table's column naming each model


def extended_model(result: runs.RunResult, length: int):
    """The run's last weights in a model for reversal at ``length`` (eval mode, on the CPU)."""
    c = result.config
    if c["encoding"] not in EXTENDABLE:
        raise ValueError(f"encoding {c['encoding']!r} has no rows beyond its training length; extendable: "
                         f"{', '.join(EXTENDABLE)}")
    if length < c["length"]:
        raise ValueError(f"length {length} is shorter than the training length {c['length']}")
    model = build_model({**c, "length": length}, device="cpu")          # [2 length positions]
    step, path = result.checkpoints()[-1]
    trained = torch.load(path, map_location="cpu", weights_only=True)["model"]
    own = model.state_dict()
    for k, v in trained.items():
        if k.startswith("encoding."):
            if not torch.equal(v, own[k][:v.shape[0]]):
                raise ValueError(f"run {result.key}: the rebuilt encoding {k} differs from the trained one")
            continue
        own[k] = v
    model.load_state_dict(own)
    return model.eval()


@torch.no_grad()
def score(result: runs.RunResult, length: int, n: int, seed: int) -> dict:
    """{"accuracy": token accuracy, "per_position": float [length] (accuracy at each output step)} of the
    run's model on ``n`` fresh reversal sequences of ``length`` tokens."""
    c = result.config
    model = extended_model(result, length)
    task = make_task("reverse", c["vocab_size"], length)
    test = task.held_out(n, torch.Generator().manual_seed(derive_seed(seed, f"length-{length}")))
    correct, counted = torch.zeros(length), torch.zeros(length)
    for i in range(0, n, 256):
        part = test.select(slice(i, i + 256))
        mask = part.targets != IGNORE                                                # [b, 2 length]
        pred = model(part.inputs).argmax(-1)                                         # [b, 2 length]
        hit = ((pred == part.targets) & mask)[:, mask.any(0)]                        # [b, length]
        correct += hit.sum(0).float()
        counted += mask[:, mask.any(0)].sum(0).float()
    per = (correct / counted).numpy()
    return {"accuracy": float(correct.sum() / counted.sum()), "per_position": per.astype(np.float64)}


def length_frame(frame: pd.DataFrame, results, cfg, progress: bool = True) -> tuple[pd.DataFrame, dict]:
    """Every valid run at the smallest vocabulary (the Transformers and the PE-LSTM) scored at L (its own
    test) and at ``test_factor`` x L; (rows: model, seed, at_L, at_long; {model: per-position accuracy at
    the long length, mean over seeds}). ``results`` None reads the runs from ``frame``'s paths."""
    long = cfg.test_factor * cfg.length
    if results is None:
        results = [runs.RunResult.from_dir(Path(p)) for p in frame["path"]]
    by_key = {r.key: r for r in results}
    at = frame[(frame["vocab"] == min(cfg.vocab)) & ~frame["diverged"].astype(bool)]
    rows, curves = [], {}
    for _, row in tqdm(list(at.iterrows()), desc=f"scoring at length {long}", disable=not progress):
        s = score(by_key[row["key"]], long, cfg.held_out, int(row["seed"]))
        rows.append(dict(model=row[MODEL], seed=int(row["seed"]), at_L=row["token_accuracy"], at_long=s["accuracy"]))
        curves.setdefault(row[MODEL], []).append(s["per_position"])
    dead = frame[(frame["vocab"] == min(cfg.vocab)) & frame["diverged"].astype(bool)]
    rows += [dict(model=r[MODEL], seed=int(r["seed"]), at_L=np.nan, at_long=np.nan, diverged=True)
             for _, r in dead.iterrows()]
    out = pd.DataFrame(rows)
    out["diverged"] = out.get("diverged", False)
    out["diverged"] = out["diverged"].fillna(False).astype(bool)
    return out, {m: np.mean(c, axis=0) for m, c in curves.items()}
