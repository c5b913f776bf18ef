"""A SentencePiece tokenizer trained by penb on the training text, cached on disk by corpus identity.

The paper (App. E) retokenised WikiText-103 with SentencePiece to 32,768 pieces; the official code
used torchtext's defaults (unigram model, character coverage 0.9995, sentences over 4,192 bytes
left out of training, all sentences used). Those are the defaults here.

The cache key is a sha256 of (text digest, vocabulary size, every training option, sentencepiece
version); the model lives at ``store_dir()/tokenizers/<key>.model`` (written atomically, with a
``.json`` note of the corpus and training time beside it). Training is deterministic: one fixed
thread count (part of the key; the model depends on it) and a fixed random seed.

Encoding truncates each paragraph to its first ``max_tokens`` pieces, so that absolute positions
start at each paragraph. No BOS/EOS is added (as in the official code).
"""
from __future__ import annotations

import hashlib
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

import sentencepiece as spm

from penb.store.atomic import atomic_write, write_json
from penb.store.paths import store_dir

MODEL_TYPES = ("unigram", "bpe")
SEED = 0
SP_UNK = "<sp_unk>"  # SentencePiece's own unknown piece when the text already uses "<unk>" as a word


def cache_dir() -> Path:
    """Folder of cached tokenizer models (inside the run store, ignored by git)."""
    return store_dir() / "tokenizers"


def text_digest(texts: Iterable[str]) -> str:
    """sha256 of the texts, one per line (equals ``Split.digest`` for the same paragraphs)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8") + b"\n")
    return h.hexdigest()


@dataclass
class Tokenizer:
    """A loaded SentencePiece model. ``trained`` says whether this call trained it (False: cache hit)."""

    path: Path
    key: str
    vocab_size: int
    options: dict
    trained: bool
    seconds: float  # training time (0.0 when loaded from the cache)
    corpus: str = ""
    sp: spm.SentencePieceProcessor = field(repr=False, default=None)

    @property
    def unk_id(self) -> int:
        """Id of SentencePiece's unknown piece (characters outside the coverage)."""
        return self.sp.unk_id()

    def encode(self, text: str, max_tokens: Optional[int] = None) -> list[int]:
        """Piece ids of one paragraph, truncated to its first ``max_tokens``."""
        _check_max(max_tokens)
        ids = self.sp.encode(text)
        return ids if max_tokens is None else ids[:max_tokens]

    def encode_all(self, texts: Sequence[str], max_tokens: Optional[int] = None) -> list[list[int]]:
        """``encode`` for every paragraph (batched in C++)."""
        _check_max(max_tokens)
        out = self.sp.encode(list(texts))
        return out if max_tokens is None else [ids[:max_tokens] for ids in out]

    def decode(self, ids: Sequence[int]) -> str:
        return self.sp.decode(list(ids))

    def pieces(self, text: str) -> list[str]:
        return self.sp.encode(text, out_type=str)


def _check_max(max_tokens: Optional[int]) -> None:
    if max_tokens is not None and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1):
        raise ValueError(f"max_tokens must be None or an int >= 1, got {max_tokens!r}")


def _options(vocab_size: int, model_type: str, character_coverage: float, max_sentence_length: int,
             user_symbols: Sequence[str], num_threads: int, hard_vocab_limit: bool) -> dict:
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 8:
        raise ValueError(f"vocab_size must be an int >= 8, got {vocab_size!r}")
    if model_type not in MODEL_TYPES:
        raise ValueError(f"unknown model_type {model_type!r}; valid: {', '.join(MODEL_TYPES)}")
    if not isinstance(character_coverage, (int, float)) or not 0.9 <= character_coverage <= 1.0:
        raise ValueError(f"character_coverage must be in [0.9, 1], got {character_coverage!r}")
    if not isinstance(max_sentence_length, int) or max_sentence_length < 16:
        raise ValueError(f"max_sentence_length must be an int >= 16 (bytes), got {max_sentence_length!r}")
    if not isinstance(num_threads, int) or num_threads < 1:
        raise ValueError(f"num_threads must be an int >= 1, got {num_threads!r}")
    opts = dict(vocab_size=vocab_size, model_type=model_type, character_coverage=float(character_coverage),
                max_sentence_length=max_sentence_length, num_threads=num_threads,
                input_sentence_size=0, shuffle_input_sentence=False, hard_vocab_limit=bool(hard_vocab_limit))
    symbols = list(user_symbols)
    bad = [s for s in symbols if not isinstance(s, str) or not s or "," in s or any(c.isspace() for c in s)]
    if bad:
        raise ValueError(f"user_symbols must be non-empty strings without commas or spaces, got {bad}")
    if symbols:
        opts["user_defined_symbols"] = ",".join(symbols)
        if "<unk>" in symbols:  # the text's own "<unk>" word becomes one ordinary piece
            opts["unk_piece"] = SP_UNK
    return opts


def cache_key(digest: str, options: dict) -> str:
    """sha256 (24 hex digits) of the text digest, the options and the sentencepiece version."""
    blob = json.dumps({"text": digest, "options": options, "sentencepiece": spm.__version__}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def train_tokenizer(texts, vocab_size: int, *, model_type: str = "unigram", character_coverage: float = 0.9995,
                    max_sentence_length: int = 4192, user_symbols: Optional[Sequence[str]] = None,
                    num_threads: int = 1, hard_vocab_limit: bool = True,
                    folder: Optional[str | Path] = None) -> Tokenizer:
    """The tokenizer of ``texts`` at ``vocab_size``: loaded from the cache, else trained and cached.

    ``texts``: a ``penb.corpus.Split`` (its digest, label and word markers are used) or a sequence
    of paragraphs. ``user_symbols`` defaults to the split's markers (``("<unk>",)`` for the
    word-level WikiText files, so that ``<unk>`` is one piece rather than five).
    ``hard_vocab_limit=False`` lets SentencePiece stop below ``vocab_size`` when the text is too
    small for it (``Tokenizer.vocab_size`` is then the size reached); the default raises instead.
    Raises ``ValueError`` for impossible options, or when the text cannot support ``vocab_size``.
    """
    if isinstance(texts, (str, bytes)):
        raise ValueError("texts must be a sequence of paragraphs (or a penb.corpus.Split), not one string")
    label = getattr(texts, "label", "")
    if user_symbols is None:
        user_symbols = getattr(texts, "markers", ())
    opts = _options(vocab_size, model_type, character_coverage, max_sentence_length, tuple(user_symbols), num_threads,
                    hard_vocab_limit)
    paragraphs = texts.paragraphs if hasattr(texts, "paragraphs") else list(texts)
    if not paragraphs or not all(isinstance(t, str) for t in paragraphs):
        raise ValueError("texts must be a non-empty sequence of strings (or a penb.corpus.Split)")
    digest = getattr(texts, "digest", None) or text_digest(paragraphs)
    key = cache_key(digest, opts)
    folder = Path(folder) if folder is not None else cache_dir()
    path = folder / f"{key}.model"
    if path.is_file():
        try:
            sp = spm.SentencePieceProcessor(model_file=str(path))
            return Tokenizer(path, key, sp.get_piece_size(), opts, False, 0.0, label, sp)
        except (RuntimeError, OSError):
            pass  # an unreadable cache entry is retrained and replaced below
    spm.set_random_generator_seed(SEED)
    buf = io.BytesIO()
    t0 = time.perf_counter()
    try:
        spm.SentencePieceTrainer.train(sentence_iterator=iter(paragraphs), model_writer=buf, minloglevel=2, **opts)
    except RuntimeError as e:
        raise ValueError(f"SentencePiece could not train a {vocab_size}-piece {model_type} model on "
                         f"{label or f'{len(paragraphs)} paragraphs'} (a smaller vocab_size, more text, or "
                         f"hard_vocab_limit=False): {e}") from e
    seconds = time.perf_counter() - t0
    model = buf.getvalue()
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(model))
    write_json(path.with_suffix(".json"), {"corpus": label, "text_digest": digest, "paragraphs": len(paragraphs),
                                           "options": opts, "sentencepiece": spm.__version__,
                                           "train_seconds": round(seconds, 3)})
    sp = spm.SentencePieceProcessor(model_proto=model)
    return Tokenizer(path, key, sp.get_piece_size(), opts, True, seconds, label, sp)
