"""Morita App. E (Fig. 15, Table 1): LSTM language models with and without the sinusoidal encoding.

    data = prepare(cfg)            # load both splits, train/load the tokenizer; a missing corpus raises here
    frame = run(cfg)               # one row per (encoding, seed): test nats, scored tokens, perplexity
    summ = summary(frame)          # per encoding: min / mean / max test perplexity over seeds (Table 1)
    curve = curves(frame)          # training perplexity per seed and logged update (Fig. 15)

Every run is a ``penb.train`` run of the ``lm`` task (``penb.tasks.lm``), kept in the run store, so a
finished run is reused and an interrupted one resumes; its held-out arrays are read through
``penb.runs.RunResult.predictions``. Test perplexity of a run is
``exp(total cross-entropy / number of scored target tokens)`` over its held-out test paragraphs (padding
and SentencePiece's unknown piece excluded); the training curve is ``exp`` of the logged loss, i.e. of
the mean over ``log_every`` updates of each batch's mean cross-entropy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims, runs
from penb.executors import Executor
from penb.names import variant_label
from penb.tasks import IGNORE

PAPER_ROWS = {"none": "vanilla", "sinusoidal": "pe"}          # keys of claims "morita.table1"


@dataclass(frozen=True)
class Data:
    """Which text trained and which tested: labels, sources, counts, and the tokenizer file."""

    train_label: str
    train_source: str
    train_paragraphs: int
    train_pieces: int          # pieces in the usable training paragraphs
    train_pieces_used: int     # of which within each paragraph's first length + 1
    test_label: str
    test_source: str
    test_paragraphs: int       # usable (>= 2 pieces) test paragraphs
    test_pieces: int           # pieces in them
    test_pieces_used: int      # of which within each paragraph's first length + 1
    tokenizer: str
    vocab: int
    length: int

    def table(self) -> pd.DataFrame:
        """One row per role (train, test): corpus and split, source, paragraphs, pieces."""
        return pd.DataFrame([
            dict(role="train (tokenizer and models)", text=self.train_label, source=self.train_source,
                 paragraphs=self.train_paragraphs, pieces=self.train_pieces,
                 pieces_in_window=self.train_pieces_used),
            dict(role="test (perplexity)", text=self.test_label, source=self.test_source,
                 paragraphs=self.test_paragraphs, pieces=self.test_pieces, pieces_in_window=self.test_pieces_used),
        ]).set_index("role")


def task_options(cfg) -> dict:
    """The ``lm`` task's options for the resolved chapter config ``cfg``."""
    return dict(corpus=cfg.corpus, train_split=cfg.train_split, test_split=cfg.test_split)


def prepare(cfg) -> Data:
    """Load both splits and the tokenizer (trained on the training split, cached on disk).

    Raises ``penb.corpus.CorpusNotFoundError`` (naming both ways to provide the corpus) when no source
    has it, and ``ValueError`` when ``held_out`` exceeds the usable test paragraphs.
    """
    from penb.tasks import make_task

    task = make_task("lm", cfg.vocab, cfg.length, **task_options(cfg))
    d = task.data                                           # loads the corpus: may raise here
    if cfg.held_out:
        task.check_held_out(cfg.held_out)
    lens, W = d.train_len, cfg.length + 1
    test_lens = [len(s) for s in d.test]
    return Data(d.train_label, d.train_source, len(lens), int(lens.sum()), int(lens.clamp(max=W).sum()),
                d.test_label, d.test_source, task.test_paragraphs, sum(test_lens), sum(min(n, W) for n in test_lens),
                d.tokenizer_path, cfg.vocab, cfg.length)


def run_configs(cfg, test_paragraphs: Optional[int] = None) -> list[dict]:
    """One ``penb.train`` config per (encoding, seed) of ``cfg``, encodings outermost.

    ``held_out=0`` in ``cfg`` means every usable test paragraph: ``test_paragraphs`` gives their number
    (``prepare(cfg).test_paragraphs``; loaded here when not given).
    """
    held_out = cfg.held_out
    if held_out == 0:
        held_out = test_paragraphs if test_paragraphs is not None else prepare(cfg).test_paragraphs
    common = dict(task="lm", task_options=task_options(cfg), vocab_size=cfg.vocab, length=cfg.length,
                  core="lstm", input_mode="concat", hidden=cfg.hidden, steps=cfg.steps,
                  batch_size=cfg.batch_size, lr=cfg.lr, warmup=cfg.warmup, betas=tuple(cfg.betas),
                  held_out=held_out, checkpoint_every=cfg.checkpoint_every, log_every=cfg.log_every,
                  device=cfg.device, amp=cfg.amp)
    return [dict(common, encoding=e, seed=s) for e in cfg.encodings for s in cfg.seeds]


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None, progress: bool = True,
        data: Optional[Data] = None) -> pd.DataFrame:
    """Train or reuse every run of ``cfg``; one row per run.

    Columns: encoding, variant, seed, total_nll (nats over the test targets), n_tokens (scored targets),
    perplexity, train_perplexity (last logged), wall_s, key, path.
    """
    data = data or prepare(cfg)                                  # fails before any training
    results, _ = runs.chapter_sweep(run_configs(cfg, data.test_paragraphs), cfg, "LM runs", executor, store,
                                    progress)
    rows = []
    for r in results:
        f = r.predictions()
        nll, targets = float(f["nll"].sum()), f["targets"]
        n = int((targets != IGNORE).sum())
        enc = r.config["encoding"]
        rows.append(dict(encoding=enc, variant=variant_label(enc), seed=r.config["seed"], total_nll=nll,
                         n_tokens=n, perplexity=math.exp(nll / n), train_perplexity=math.exp(r.history[-1]["loss"]),
                         wall_s=r.wall_s, key=r.key, path=str(r.path), history=r.history))
    return pd.DataFrame(rows)


def curves(frame: pd.DataFrame) -> pd.DataFrame:
    """Long frame of the training curves: encoding, variant, seed, step, loss, perplexity (= exp(loss))."""
    rows = [dict(encoding=r.encoding, variant=r.variant, seed=r.seed, step=h["step"], loss=h["loss"],
                 perplexity=math.exp(h["loss"])) for r in frame.itertuples() for h in r.history]
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per encoding (rows in ``frame`` order): seeds, min / mean / max over seeds of each run's test
    perplexity exp(total_nll / n_tokens), and the scored tokens per run."""
    rows = []
    for enc, g in frame.groupby("encoding", sort=False):
        ppl = np.exp(g["total_nll"].to_numpy(float) / g["n_tokens"].to_numpy(float))
        rows.append(dict(encoding=enc, variant=variant_label(enc), seeds=len(g), min=float(ppl.min()),
                         mean=float(ppl.mean()), max=float(ppl.max()), n_tokens=int(g["n_tokens"].iloc[0])))
    return pd.DataFrame(rows).set_index("encoding")


def table1(summ: pd.DataFrame) -> pd.DataFrame:
    """Table 1 beside ours: one row per model, the paper's min/mean/max and ours."""
    paper = claims.get("morita.table1").value
    rows = []
    for enc, key in PAPER_ROWS.items():
        p, o = paper[key], summ.loc[enc]
        rows.append({"model": f"{variant_label(enc)} LSTM", "paper min": p["min"], "paper mean": p["mean"],
                     "paper max": p["max"], "ours min": o["min"], "ours mean": o["mean"], "ours max": o["max"],
                     "seeds": int(o["seeds"])})
    return pd.DataFrame(rows).set_index("model")


def paired_gap(curve: pd.DataFrame) -> pd.DataFrame:
    """log(vanilla / PE) training perplexity per logged step and seed (same seed = same batches).

    Positive: the position-encoded model is ahead. Columns: one per seed, plus ``mean``; index: step.
    """
    wide = curve.pivot_table(index="step", columns=["encoding", "seed"], values="loss")
    gap = wide["none"] - wide["sinusoidal"]
    gap = gap.dropna(axis=1, how="all")
    gap["mean"] = gap.mean(axis=1)
    return gap


STATES = ("as in the paper", "opposite", "mixed across seeds")


def _state(signs: list[bool]) -> str:
    """'as in the paper' when every seed agrees with the paper, 'opposite' when none does, else mixed."""
    return STATES[0] if all(signs) else STATES[1] if not any(signs) else STATES[2]


def verdict(frame: pd.DataFrame, curve: pd.DataFrame, steps: int) -> dict:
    """The chapter's verdict, as facts for the prose; seeds are paired (same seed = same batches).

    Fig. 15: ``early_gap`` is the mean paired gap (``paired_gap``) over the logged updates in the first
    quarter of training (warm-up included; at least the first logged update), ``early_by_seed`` the same
    per seed, ``early_ahead`` how many seeds have PE ahead there, ``late_gap`` the mean over the last quarter.
    Table 1: ``test_ratio`` = mean PE / mean vanilla test perplexity, ``test_by_seed`` the ratio per seed,
    ``test_worse`` how many seeds have PE worse. ``early_state`` / ``test_state``: one of ``STATES``.
    """
    gap = paired_gap(curve).sort_index()
    early = gap[gap.index <= steps / 4]
    early = early if len(early) else gap.iloc[:1]
    late = gap[gap.index > 3 * steps / 4]
    late = late if len(late) else gap.iloc[-1:]
    by_seed = {int(k): float(x) for k, x in early.drop(columns="mean").mean().items()}
    ppl = frame.pivot_table(index="seed", columns="encoding", values="perplexity")
    ratio = {int(k): float(x) for k, x in (ppl["sinusoidal"] / ppl["none"]).dropna().items()}
    means = frame.groupby("encoding")["perplexity"].mean()
    return dict(early_gap=float(early["mean"].mean()), early_by_seed=by_seed,
                early_ahead=sum(x > 0 for x in by_seed.values()), late_gap=float(late["mean"].mean()),
                early_range=(int(early.index[0]), int(early.index[-1])),
                late_range=(int(late.index[0]), int(late.index[-1])),
                early_state=_state([x > 0 for x in by_seed.values()]),
                test_ratio=float(means["sinusoidal"] / means["none"]), test_by_seed=ratio,
                test_worse=sum(x > 1 for x in ratio.values()), test_state=_state([x > 1 for x in ratio.values()]),
                seeds=len(ratio))


def verdict_label(v: dict) -> str:
    """Headline of ``verdict(...)``: Fig. 15's early PE advantage and Table 1's PE-worse-at-test, each
    'as in the paper' (every seed), 'opposite' (every seed) or 'mixed across seeds'."""
    if v["early_state"] == v["test_state"] == STATES[0]:
        return "both directions as in the paper, for every seed (values not comparable)"
    if v["early_state"] == v["test_state"] == STATES[2]:
        return "not resolved, the seeds disagree on both directions"
    return f"early training (Fig. 15): {v['early_state']}; test (Table 1): {v['test_state']}"
