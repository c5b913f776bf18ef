"""Morita App. E (Fig. 15, Table 1): LSTM language models with and without the
sinusoidal encoding.

    data = prepare(cfg)         # both splits and the tokenizer; a missing corpus raises
    frame = run(cfg)            # one row per (encoding, seed): test nats, perplexity
    summ = summary(frame)       # per encoding: min / mean / max over seeds, interval
    curve = curves(frame)       # training perplexity per seed and logged update

The grades are in ``penb.chapters.lm_appendix.grading``.

Every run is a ``penb.trainer`` run of the ``lm`` task (``penb.tasks.lm``) in the run
store; held-out arrays come from ``penb.runs.RunResult.predictions``. A diverged run
is kept, flagged and counted, never summarised. Test perplexity of a run is
``exp(total cross-entropy / number of scored target tokens)`` over its held-out test
paragraphs (padding and SentencePiece's unknown piece excluded); the training curve is
``exp`` of the logged loss, i.e. of the mean over ``log_every`` updates of each batch's
mean cross-entropy. The seed is the unit: intervals are over seeds
(``penb.claims.seed_interval``); every claim is graded on per-seed values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims
from penb import runs
from penb import sweeps
from penb.executors import Executor
from penb.names import variant_label
from penb.tasks import IGNORE, make_task

PAPER_ROWS = {"none": "vanilla", "sinusoidal": "pe"}   # keys of claim "morita.table1"


@dataclass(frozen=True)
class Data:
    """Which text trained and which tested: labels, sources, counts, the tokenizer."""

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
        """One row per role (train, test): corpus and split, source, paragraphs,
        pieces."""
        return pd.DataFrame([
            dict(role="train (tokenizer and models)", text=self.train_label,
                 source=self.train_source, paragraphs=self.train_paragraphs,
                 pieces=self.train_pieces, pieces_in_window=self.train_pieces_used),
            dict(role="test (perplexity)", text=self.test_label,
                 source=self.test_source, paragraphs=self.test_paragraphs,
                 pieces=self.test_pieces, pieces_in_window=self.test_pieces_used),
        ]).set_index("role")


def task_options(cfg) -> dict:
    """The ``lm`` task's options for the resolved chapter config ``cfg``."""
    return dict(corpus=cfg.corpus, train_split=cfg.train_split,
                test_split=cfg.test_split)


def prepare(cfg) -> Data:
    """Load both splits and the tokenizer (trained on the training split, cached on
    disk).

    Raises ``penb.corpus.CorpusNotFoundError`` (naming both ways to provide the corpus)
    when no source has it, and ``ValueError`` when ``held_out`` exceeds the usable test
    paragraphs.
    """
    task = make_task("lm", cfg.vocab, cfg.length, **task_options(cfg))
    d = task.data                                   # loads the corpus: may raise here
    if cfg.held_out:
        task.check_held_out(cfg.held_out)
    lens, W = d.train_len, cfg.length + 1
    test_lens = [len(s) for s in d.test]
    return Data(d.train_label, d.train_source, len(lens), int(lens.sum()),
                int(lens.clamp(max=W).sum()), d.test_label, d.test_source,
                task.test_paragraphs, sum(test_lens), sum(min(n, W) for n in test_lens),
                d.tokenizer_path, cfg.vocab, cfg.length)


def run_configs(cfg, test_paragraphs: Optional[int] = None) -> list[dict]:
    """One run config per (encoding, seed) of ``cfg``, encodings outermost.

    ``held_out=0`` in ``cfg`` means every usable test paragraph: ``test_paragraphs``
    gives their number (``prepare(cfg).test_paragraphs``; loaded here when not given).
    """
    held_out = cfg.held_out
    if held_out == 0:
        held_out = (test_paragraphs if test_paragraphs is not None
                    else prepare(cfg).test_paragraphs)
    common = dict(task="lm", task_options=task_options(cfg), vocab_size=cfg.vocab,
                  length=cfg.length, core="lstm", input_mode="concat",
                  hidden=cfg.hidden, steps=cfg.steps, batch_size=cfg.batch_size,
                  lr=cfg.lr, warmup=cfg.warmup, betas=tuple(cfg.betas),
                  held_out=held_out, checkpoint_every=cfg.checkpoint_every,
                  log_every=cfg.log_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, encoding=e, seed=s) for e in cfg.encodings for s in cfg.seeds]


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True, data: Optional[Data] = None) -> pd.DataFrame:
    """Train or reuse every run of ``cfg``; one row per run, diverged runs included.

    Columns: encoding, variant, seed, total_nll (nats over the test targets), n_tokens
    (scored targets), perplexity, train_perplexity (last logged), diverged, diverged_at
    (the update at which the loss turned non-finite), wall_s, key, path, history. A
    diverged run has no predictions: its test columns are NaN (n_tokens 0).
    """
    data = data or prepare(cfg)                     # fails before any training
    configs = run_configs(cfg, data.test_paragraphs)
    results, _ = sweeps.chapter_sweep(configs, cfg, "LM runs", executor, store, progress)
    bad = {r.key for r in runs.split_diverged(results)[1]}
    rows = []
    for r in results:
        enc, gone = r.config["encoding"], r.key in bad
        nll, n = math.nan, 0
        if not gone:
            f = r.predictions()
            nll, n = float(f["nll"].sum()), int((f["targets"] != IGNORE).sum())
        last = r.history[-1]["loss"] if r.history else math.nan
        rows.append(dict(encoding=enc, variant=variant_label(enc),
                         seed=r.config["seed"], total_nll=nll, n_tokens=n,
                         perplexity=math.nan if gone else math.exp(nll / n),
                         train_perplexity=math.exp(last) if math.isfinite(last)
                         else math.nan,
                         diverged=gone, diverged_at=r.divergence.get("step", math.nan),
                         wall_s=r.wall_s, key=r.key, path=str(r.path),
                         history=r.history))
    return pd.DataFrame(rows)


def valid(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs that did not diverge (the only ones a summary reads)."""
    if "diverged" not in frame:
        return frame
    return frame[~frame["diverged"].astype(bool)]


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The raw run table of the chapter's ``## Runs`` section: one row per run."""
    div = [f"at {int(s)}" if d else "" for d, s in zip(frame["diverged"],
                                                      frame["diverged_at"])]
    t = frame.assign(diverged=div)[["variant", "seed", "perplexity", "n_tokens",
                                    "train_perplexity", "diverged", "wall_s"]]
    return t.round({"perplexity": 3, "train_perplexity": 3, "wall_s": 1}).set_index(
        ["variant", "seed"])


def curves(frame: pd.DataFrame) -> pd.DataFrame:
    """Long frame of the valid runs' training curves: encoding, variant, seed, step,
    loss, perplexity (= exp(loss))."""
    rows = [dict(encoding=r.encoding, variant=r.variant, seed=r.seed, step=h["step"],
                 loss=h["loss"], perplexity=math.exp(h["loss"]))
            for r in valid(frame).itertuples() for h in r.history]
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame, n_resamples: int = 10_000) -> pd.DataFrame:
    """Per encoding (rows in ``frame`` order), over the valid runs: seeds, diverged
    runs, min / mean / max over seeds of each run's test perplexity
    exp(total_nll / n_tokens), the 95% bootstrap interval of the mean over seeds
    (lo, hi), and the scored tokens per run."""
    rows = []
    for enc, g in frame.groupby("encoding", sort=False):
        ok = valid(g)
        ppl = np.exp(ok["total_nll"].to_numpy(float) / ok["n_tokens"].to_numpy(float))
        mean, lo, hi = claims.bootstrap_interval(ppl, n_resamples=n_resamples)
        some = len(ppl) > 0
        rows.append(dict(encoding=enc, variant=variant_label(enc), seeds=len(ok),
                         diverged=int(g["diverged"].sum()) if "diverged" in g else 0,
                         min=float(ppl.min()) if some else math.nan, mean=mean,
                         max=float(ppl.max()) if some else math.nan, lo=lo, hi=hi,
                         n_tokens=int(ok["n_tokens"].iloc[0]) if some else 0))
    return pd.DataFrame(rows).set_index("encoding")


def table1(summ: pd.DataFrame) -> pd.DataFrame:
    """Table 1 beside ours: one row per model, the paper's min/mean/max and ours, with
    our mean's 95% interval over seeds."""
    paper = claims.get("morita.table1").value
    rows = []
    for enc, key in PAPER_ROWS.items():
        p, o = paper[key], summ.loc[enc]
        rows.append({"model": f"{variant_label(enc)} LSTM", "paper min": p["min"],
                     "paper mean": p["mean"], "paper max": p["max"],
                     "ours min": o["min"], "ours mean": o["mean"], "ours max": o["max"],
                     "ours: 95% interval of the mean over seeds":
                         f"[{o['lo']:.2f}, {o['hi']:.2f}]",
                     "seeds": int(o["seeds"]), "diverged": int(o["diverged"])})
    return pd.DataFrame(rows).set_index("model")


def paired_gap(curve: pd.DataFrame) -> pd.DataFrame:
    """log(vanilla / PE) training perplexity per logged step and seed (same seed = same
    batches).

    Positive: the position-encoded model is ahead. Columns: one per seed, plus
    ``mean``; index: step.
    """
    wide = curve.pivot_table(index="step", columns=["encoding", "seed"], values="loss")
    gap = wide["none"] - wide["sinusoidal"]
    gap = gap.dropna(axis=1, how="all")
    gap["mean"] = gap.mean(axis=1)
    return gap


def early_late(curve: pd.DataFrame, steps: int, early_end: Optional[int] = None) -> dict:
    """Numbers of the paired gap (``paired_gap``): ``early_gap``, the mean gap over the
    logged updates in the first quarter of training, or up to ``early_end`` if that
    comes first (warm-up included; at least the first logged update), ``early_by_seed``
    the same per seed (the evidence of ``morita.fig15.early``), ``early_ahead`` how many
    seeds have PE ahead there, ``late_gap`` the mean over the last quarter, the ranges
    of logged updates they cover, and the number of seeds."""
    gap = paired_gap(curve).sort_index()
    end = steps / 4 if early_end is None else min(steps / 4, early_end)
    early = gap[gap.index <= end]
    early = early if len(early) else gap.iloc[:1]
    late = gap[gap.index > 3 * steps / 4]
    late = late if len(late) else gap.iloc[-1:]
    by_seed = {int(k): float(x) for k, x in early.drop(columns="mean").mean().items()}
    return dict(early_gap=float(early["mean"].mean()), early_by_seed=by_seed,
                early_ahead=sum(x > 0 for x in by_seed.values()),
                late_gap=float(late["mean"].mean()),
                early_range=(int(early.index[0]), int(early.index[-1])),
                late_range=(int(late.index[0]), int(late.index[-1])),
                seeds=len(by_seed))
