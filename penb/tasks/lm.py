"""The ``lm`` task: next-token prediction on tokenised WikiText paragraphs, trainable by ``penb.trainer``.

    make_task("lm", vocab_size=V, length=T, corpus="wikitext-2", train_split="valid", test_split="test",
              crop="start", ignore_unk=True, model_type="unigram", bos=False)

* the **tokenizer** is SentencePiece with ``V`` pieces (``model_type``), trained on the training split
  (``penb.tokenizer``, cached on disk under the run store);
* a **training batch** draws ``batch_size`` paragraphs of ``train_split`` uniformly with replacement
  from the run's data generator (so a resumed run continues bit for bit) and takes ``T + 1`` tokens
  of each: its first ones (``crop="start"``: the paper's "first tokens of each paragraph") or a window
  at a uniformly drawn offset (``crop="random"``: uses the whole text of a small corpus);
* the **held-out set** is ``held_out`` paragraphs of ``test_split`` spread evenly through it (paragraph
  ``floor(i N / n)``, i = 0..n-1, of the N usable ones; all of them when n = N), each truncated to its
  first ``T + 1`` tokens, as in the paper;
* a row of ``k`` tokens gives inputs ``ids[:-1]`` and targets ``ids[1:]`` (no BOS/EOS, as the official
  code), right-padded to ``T`` with the command token ``V`` (inputs) and ``IGNORE`` (targets): the
  models are causal, so padding cannot change a real step. ``ignore_unk`` drops SentencePiece's own
  unknown piece from the targets (the official code did); WikiText's ``<unk>`` word is an ordinary
  piece and is scored;
* ``bos=True`` puts the command token ``V`` before each window as a begin-of-sequence mark: inputs
  ``[V, ids[:-1]]``, targets ``ids`` (windows and test rows then hold ``T`` tokens, and the first token
  is scored too). The paper's setting is ``bos=False``.

``penb.trainer`` reports ``perplexity`` = exp(total cross-entropy / scored tokens) on the held-out set for
this task (``reports_perplexity``). ``T`` is the task's ``length``: the paper's official code feeds
1,024 inputs (``length=1024``); its text says the first 1,024 tokens (``length=1023``).
Paragraphs with fewer than 2 tokens give no target and are left out of both splits.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

import torch

from penb.corpus import CORPORA, ENV_VAR, SPLITS, load_split
from penb.store.paths import shared_dir, store_dir
from penb.tasks.task import IGNORE, Batch, Task

CROPS = ("start", "random")


@dataclass(frozen=True)
class LMData:
    """A tokenised corpus: ``train_flat`` LongTensor[N_tok] (paragraphs end to end) with ``train_start``,
    ``train_len`` LongTensor[P]; ``test`` the test paragraphs' ids (>= 2 each); ``unk_id``; descriptions."""

    train_flat: torch.Tensor
    train_start: torch.Tensor
    train_len: torch.Tensor
    test: tuple
    test_index: tuple          # each kept test paragraph's index in the preprocessed split
    unk_id: int
    tokenizer_path: str
    train_label: str
    test_label: str
    train_source: str
    test_source: str
    train_digest: str = ""     # sha256 of the paragraphs of each split (penb.corpus.Split.digest)
    test_digest: str = ""


def load_data(corpus: str, train_split: str, test_split: str, vocab_size: int, model_type: str) -> LMData:
    """Load both splits, train (or load the cached) tokenizer on the training split, tokenise both.

    Cached per process, keyed also by where corpora and tokenizers live (``$PENB_WIKITEXT_DIR``, the
    shared folder, the run store), so that pointing those elsewhere loads afresh.
    """
    where = (os.environ.get(ENV_VAR, ""), str(shared_dir()), str(store_dir()))
    return _load_data(corpus, train_split, test_split, vocab_size, model_type, where)


@lru_cache(maxsize=8)
def _load_data(corpus: str, train_split: str, test_split: str, vocab_size: int, model_type: str,
               where: tuple) -> LMData:
    from penb.tokenizer import train_tokenizer  # deferred: sentencepiece loads only for the lm task

    train, test = load_split(corpus, train_split), load_split(corpus, test_split)
    tok = train_tokenizer(train, vocab_size, model_type=model_type)
    if tok.vocab_size != vocab_size:  # pragma: no cover - hard_vocab_limit makes SentencePiece raise first
        raise ValueError(f"tokenizer reached {tok.vocab_size} pieces, not {vocab_size}")
    ids = [s for s in tok.encode_all(train.paragraphs) if len(s) >= 2]
    lens = torch.tensor([len(s) for s in ids], dtype=torch.long)
    flat = torch.tensor([t for s in ids for t in s], dtype=torch.long)
    starts = torch.cumsum(lens, 0) - lens
    kept = [(i, tuple(s)) for i, s in enumerate(tok.encode_all(test.paragraphs)) if len(s) >= 2]
    return LMData(flat, starts, lens, tuple(s for _, s in kept), tuple(i for i, _ in kept), tok.unk_id,
                  str(tok.path), train.label, test.label, train.source, test.source, train.digest, test.digest)


class LMTask(Task):
    """``lm``: see the module docstring. Tokens 0..V-1 are SentencePiece pieces; V is the padding/command."""

    name = "lm"
    options = {"corpus": "wikitext-2", "train_split": "valid", "test_split": "test", "crop": "start",
               "ignore_unk": True, "model_type": "unigram", "bos": False}
    reports_perplexity = True

    def identity(self) -> dict:
        """The text behind the corpus name: a run key covers it, so an edited corpus file never reuses runs."""
        return {"train_digest": self.data.train_digest, "test_digest": self.data.test_digest}

    def _check(self):
        from penb.tokenizer import MODEL_TYPES  # deferred: sentencepiece loads only for the lm task

        if self.corpus not in CORPORA:
            raise ValueError(f"lm: unknown corpus {self.corpus!r}; valid: {', '.join(CORPORA)}")
        for key in ("train_split", "test_split"):
            if getattr(self, key) not in SPLITS:
                raise ValueError(f"lm: unknown {key} {getattr(self, key)!r}; valid: {', '.join(SPLITS)}")
        if self.train_split == self.test_split:
            raise ValueError(f"lm: train_split and test_split are both {self.train_split!r}; they must differ")
        if self.crop not in CROPS:
            raise ValueError(f"lm: unknown crop {self.crop!r}; valid: {', '.join(CROPS)}")
        for key in ("ignore_unk", "bos"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"lm: {key} must be True or False, got {getattr(self, key)!r}")
        if self.model_type not in MODEL_TYPES:
            raise ValueError(f"lm: unknown model_type {self.model_type!r}; valid: {', '.join(MODEL_TYPES)}")
        if self.vocab_size < 8:
            raise ValueError(f"lm: vocab_size (SentencePiece pieces) must be >= 8, got {self.vocab_size}")
        self._on: dict = {}

    # -- data ------------------------------------------------------------------------------------------
    @property
    def data(self) -> LMData:
        """The tokenised corpus (loaded, and the tokenizer trained, on first use; cached per process)."""
        return load_data(self.corpus, self.train_split, self.test_split, self.vocab_size, self.model_type)

    @property
    def num_steps(self) -> int:
        return self.length

    @property
    def train_paragraphs(self) -> int:
        return len(self.data.train_len)

    @property
    def test_paragraphs(self) -> int:
        """N: usable (>= 2 tokens) paragraphs of the test split; the largest ``held_out``."""
        return len(self.data.test)

    def describe(self) -> str:
        """One line for the book: which text trains, which tests, and the tokenizer."""
        d = self.data
        return (f"train: {d.train_label} ({self.train_paragraphs:,} paragraphs, {int(d.train_len.sum()):,} tokens; "
                f"{d.train_source}); test: {d.test_label} ({self.test_paragraphs:,} paragraphs; {d.test_source}); "
                f"SentencePiece {self.model_type} with {self.vocab_size:,} pieces trained on the training split; "
                f"{self.length} inputs per paragraph, crop {self.crop!r}")

    def _tensors(self, device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        key = str(device)
        if key not in self._on:
            d = self.data
            self._on[key] = tuple(t.to(device) for t in (d.train_flat, d.train_start, d.train_len))
        return self._on[key]

    @property
    def window(self) -> int:
        """Tokens of text per row: T + 1, or T with ``bos`` (the mark supplies the first input)."""
        return self.length + (not self.bos)

    def _rows(self, windows: torch.Tensor, valid: torch.Tensor) -> Batch:
        """windows, valid: [n, window] token ids and their validity -> a Batch of T steps."""
        if self.bos:
            mark = torch.full_like(windows[:, :1], self.command)
            windows, valid = torch.cat([mark, windows], 1), torch.cat([torch.ones_like(valid[:, :1]), valid], 1)
        inputs = torch.where(valid[:, 1:], windows[:, :-1], self.command)     # a row of k tokens: k - 1 inputs
        keep = valid[:, 1:]
        if self.ignore_unk:
            keep = keep & (windows[:, 1:] != self.data.unk_id)
        targets = torch.where(keep, windows[:, 1:], IGNORE)
        return Batch(inputs, targets, valid[:, 1:].sum(1))

    def render(self, raw: Sequence[Sequence[int]], spec: Optional[torch.Tensor] = None) -> Batch:
        """Token id sequences (each >= 2 long) -> a Batch of their first ``window`` tokens (CPU tensors)."""
        n, W = len(raw), self.window
        if n == 0 or any(len(s) < 2 for s in raw):
            raise ValueError("lm.render needs a non-empty list of sequences of >= 2 tokens each")
        windows = torch.zeros(n, W, dtype=torch.long)
        valid = torch.zeros(n, W, dtype=torch.bool)
        for i, s in enumerate(raw):
            s = torch.as_tensor(list(s[:W]), dtype=torch.long)
            windows[i, :len(s)], valid[i, :len(s)] = s, True
        if ((windows < 0) | (windows >= self.vocab_size)).any():
            raise ValueError(f"lm.render: token ids must lie in [0, {self.vocab_size})")
        return self._rows(windows, valid)

    # -- the Task interface --------------------------------------------------------------------------
    def check_held_out(self, num_sequences: int, device="cpu") -> None:
        if isinstance(num_sequences, bool) or not isinstance(num_sequences, int) or num_sequences < 1:
            raise ValueError(f"num_sequences must be a positive int, got {num_sequences!r}")
        if num_sequences > self.test_paragraphs:
            raise ValueError(f"lm: held_out={num_sequences}, but {self.data.test_label} has only "
                             f"{self.test_paragraphs} usable paragraphs (use held_out={self.test_paragraphs} "
                             f"for all of them)")

    def held_out(self, num_sequences: int, generator: torch.Generator) -> Batch:
        """``num_sequences`` test paragraphs spread evenly through the split (no randomness)."""
        self.check_held_out(num_sequences)
        N = self.test_paragraphs
        index = [i * N // num_sequences for i in range(num_sequences)]
        batch = self.render([self.data.test[i] for i in index])
        batch.info = {"paragraph": torch.tensor([self.data.test_index[i] for i in index], dtype=torch.long)}
        return batch.to(generator.device)

    def sample(self, batch_size: int, generator: torch.Generator) -> Batch:
        """``batch_size`` training windows of ``window`` tokens (paragraphs drawn with replacement)."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        dev, W = generator.device, self.window
        flat, start, length = self._tensors(dev)
        idx = torch.randint(len(length), (batch_size,), generator=generator, device=dev)
        n = length[idx]
        if self.crop == "random":
            span = (n - W + 1).clamp(min=1)                              # possible window starts
            offset = (torch.rand(batch_size, generator=generator, device=dev, dtype=torch.float64) * span).long()
        else:
            offset = torch.zeros_like(n)
        step = torch.arange(W, device=dev)
        valid = step[None, :] < (n - offset)[:, None]
        pos = (start[idx] + offset)[:, None] + step[None, :]
        windows = flat[pos.clamp(max=len(flat) - 1)]
        return self._rows(windows, valid)


load_data.cache_clear = _load_data.cache_clear
