"""WikiText corpora for the language-modelling appendix (Morita App. E), one paragraph per sample.

Preprocessing follows the paper: heading lines (`` = Title = ``, `` = = Section = = ``, any
level) and empty lines are dropped, and every remaining line is one paragraph.

Where a corpus comes from, in this order (``source="auto"``):

1. ``data_dir``, a folder holding the split files directly (``wiki.valid.raw``, ``valid.txt``, ...);
2. ``$PENB_WIKITEXT_DIR/<corpus>/``: a folder of corpus folders, laid out like the official zips
   (``wikitext-103-raw/wiki.train.raw``);
3. the project's shared copy, ``penb.store.paths.shared_dir()/data/<corpus>/`` (WikiText-2 valid/test only);
4. the ``datasets`` library (``Salesforce/wikitext``), imported only here, when installed and online.

An explicit ``data_dir`` that fails is an error (no fallback). Nothing is ever copied into the
repository, and there is no toy fallback: when no source has the corpus, ``CorpusNotFoundError``
names both ways to provide one. Each returned :class:`Split` records its corpus, split and source.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from penb.store.paths import shared_dir

ENV_VAR = "PENB_WIKITEXT_DIR"
SPLITS = ("train", "valid", "test")
SOURCES = ("auto", "local", "datasets")
HEADING_RULES = ("balanced", "prefix")
HF_DATASET = "Salesforce/wikitext"
_HF_SPLIT = {"train": "train", "valid": "validation", "test": "test"}


@dataclass(frozen=True)
class CorpusSpec:
    """A WikiText variant: its title, file names per split, ``datasets`` config and word markers."""

    key: str
    title: str
    file_patterns: tuple[str, ...]  # formatted with split=...
    hf_config: str
    markers: tuple[str, ...]  # word-level markers in the text (kept as single tokens by the tokenizer)


CORPORA = {
    "wikitext-103-raw": CorpusSpec("wikitext-103-raw", "WikiText-103 (raw)",
                                   ("wiki.{split}.raw",), "wikitext-103-raw-v1", ()),
    "wikitext-103": CorpusSpec("wikitext-103", "WikiText-103 (word-level, with <unk>)",
                               ("wiki.{split}.tokens",), "wikitext-103-v1", ("<unk>",)),
    "wikitext-2-raw": CorpusSpec("wikitext-2-raw", "WikiText-2 (raw)",
                                 ("wiki.{split}.raw",), "wikitext-2-raw-v1", ()),
    "wikitext-2": CorpusSpec("wikitext-2", "WikiText-2 (word-level, with <unk>)",
                             ("wiki.{split}.tokens", "{split}.txt"), "wikitext-2-v1", ("<unk>",)),
}


class CorpusError(ValueError):
    """The corpus was found but is malformed (missing split file, empty split, binary file)."""


class CorpusNotFoundError(FileNotFoundError):
    """No source provides the corpus; the message names every way to provide one.

    ``reason`` is the short cause (without the how-to), used when several sources were tried.
    """

    def __init__(self, reason: str, how_to: str = ""):
        super().__init__(f"{reason}. {how_to}" if how_to else reason)
        self.reason = reason


@dataclass(frozen=True)
class Split:
    """One preprocessed split: ``paragraphs`` (one string each) and where they came from.

    ``digest`` is a sha256 of the paragraphs (the corpus identity used by the tokenizer cache).
    """

    corpus: str
    title: str
    split: str
    source: str  # "local:<file>" or "datasets:<name>/<config>[<split>]"
    paragraphs: tuple[str, ...]
    digest: str
    heading_rule: str
    lines_read: int
    headings_dropped: int
    empty_dropped: int
    markers: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.paragraphs)

    @property
    def label(self) -> str:
        """Short name for tables and captions, e.g. 'WikiText-2 (raw) valid'."""
        return f"{self.title} {self.split}"

    def describe(self) -> str:
        """One line for the book: corpus, split, paragraph count and source."""
        return (f"{self.label}: {len(self):,} paragraphs ({self.headings_dropped:,} headings and "
                f"{self.empty_dropped:,} empty lines dropped, rule {self.heading_rule!r}); source {self.source}")


_BALANCED = re.compile(r"^(=(?: =)*) \S(?:.*\S)? \1$")


def is_heading(line: str, rule: str = "balanced") -> bool:
    """True for a WikiText heading line.

    ``balanced``: the stripped line is ``= ... =`` with the same number of ``=`` on both sides
    (any level). ``prefix``: the line starts with `` =`` (the official code's rule, which also
    drops the two table-legend lines of WikiText-2 test that start with ``=``).
    """
    if rule == "balanced":
        return _BALANCED.match(line.strip()) is not None
    if rule == "prefix":
        return line.startswith(" =") or line.startswith("=")
    raise ValueError(f"unknown heading rule {rule!r}; valid: {', '.join(HEADING_RULES)}")


def _check_args(corpus: str, split: str, source: str, heading_rule: str) -> CorpusSpec:
    if corpus not in CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}; valid: {', '.join(CORPORA)}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; valid: {', '.join(SPLITS)}")
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; valid: {', '.join(SOURCES)}")
    if heading_rule not in HEADING_RULES:
        raise ValueError(f"unknown heading rule {heading_rule!r}; valid: {', '.join(HEADING_RULES)}")
    return CORPORA[corpus]


def _preprocess(lines: Iterable[str], rule: str) -> tuple[list[str], int, int, int, str]:
    """(paragraphs, lines read, headings dropped, empty lines dropped, sha256 of the paragraphs)."""
    out, n, heads, empty = [], 0, 0, 0
    h = hashlib.sha256()
    for line in lines:
        n += 1
        if not line.strip():
            empty += 1
        elif is_heading(line, rule):
            heads += 1
        else:
            text = line.strip()
            out.append(text)
            h.update(text.encode("utf-8") + b"\n")
    return out, n, heads, empty, h.hexdigest()


def _read_lines(path: Path) -> Iterable[str]:
    """Lines of a UTF-8 text file; a NUL byte or invalid UTF-8 raises ``CorpusError``."""
    with open(path, "rb") as f:
        if b"\x00" in f.read(8192):
            raise CorpusError(f"{path} looks binary (NUL bytes in its first 8 KiB); expected a WikiText text file")
        f.seek(0)
        for i, raw in enumerate(f, 1):
            if b"\x00" in raw:
                raise CorpusError(f"{path} looks binary (NUL byte on line {i}); expected a WikiText text file")
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise CorpusError(f"{path} is not UTF-8 text (line {i}: {e.reason}); expected a WikiText file") from None


def _split_file(folder: Path, spec: CorpusSpec, split: str) -> Path:
    """The split's file in ``folder``, or ``CorpusError`` listing what was expected and found."""
    names = [p.format(split=split) for p in spec.file_patterns]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    found = sorted(p.name for p in folder.iterdir())[:12]
    raise CorpusError(f"{folder} has no {split!r} split of {spec.title}: expected one of {names}; "
                      f"found {found or 'nothing'}")


def _finish(spec: CorpusSpec, split: str, source: str, lines: Iterable[str], rule: str) -> Split:
    paras, n, heads, empty, digest = _preprocess(lines, rule)
    if not paras:
        raise CorpusError(f"{spec.title} {split} from {source} has no paragraphs after dropping headings and "
                          f"empty lines ({n} lines read): empty or malformed split")
    return Split(spec.key, spec.title, split, source, tuple(paras), digest, rule, n, heads, empty, spec.markers)


def load_local(folder: str | os.PathLike, corpus: str = "wikitext-2", split: str = "valid",
               heading_rule: str = "balanced") -> Split:
    """Read ``split`` of ``corpus`` from ``folder`` (which holds the split files directly)."""
    spec = _check_args(corpus, split, "local", heading_rule)
    folder = Path(folder)
    if not folder.is_dir():
        raise CorpusNotFoundError(f"corpus folder {folder} does not exist", _how_to(spec, split))
    path = _split_file(folder, spec, split)
    return _finish(spec, split, f"local:{path.resolve()}", _read_lines(path), heading_rule)


def load_datasets(corpus: str = "wikitext-103-raw", split: str = "valid", heading_rule: str = "balanced") -> Split:
    """Read the split through the ``datasets`` library (network or its local cache)."""
    spec = _check_args(corpus, split, "datasets", heading_rule)
    try:
        import datasets  # noqa: F401 (deferred: datasets is optional, the hub extra; not in requirements)
    except ImportError as e:
        raise CorpusNotFoundError(f"the `datasets` library is not installed ({e})", _how_to(spec, split)) from None
    try:
        ds = datasets.load_dataset(HF_DATASET, spec.hf_config, split=_HF_SPLIT[split])
    except Exception as e:  # network down, hub unreachable, unknown config, ...
        raise CorpusNotFoundError(f"`datasets` could not load {HF_DATASET}/{spec.hf_config} ({type(e).__name__}: {e})",
                                  _how_to(spec, split)) from e
    source = f"datasets:{HF_DATASET}/{spec.hf_config}[{_HF_SPLIT[split]}]"
    return _finish(spec, split, source, (row["text"] for row in ds), heading_rule)


def candidate_folders(corpus: str) -> list[tuple[str, Path]]:
    """The local folders ``source='auto'`` tries for ``corpus``: (origin, folder), in order."""
    out = []
    env = os.environ.get(ENV_VAR)
    if env:
        out.append((f"${ENV_VAR}", Path(env) / corpus))
    out.append(("shared copy", shared_dir() / "data" / corpus))
    return out


def load_split(corpus: str = "wikitext-2", split: str = "valid", *, data_dir: Optional[str | os.PathLike] = None,
               source: str = "auto", heading_rule: str = "balanced") -> Split:
    """Load and preprocess one split; see the module docstring for the order of sources.

    Raises ``ValueError`` for an unknown corpus/split/source/rule, ``CorpusError`` for a malformed
    corpus and ``CorpusNotFoundError`` when no source has it.
    """
    spec = _check_args(corpus, split, source, heading_rule)
    if data_dir is not None:
        if source == "datasets":
            raise ValueError("data_dir was given with source='datasets'; give one or the other")
        return load_local(data_dir, corpus, split, heading_rule)
    env = os.environ.get(ENV_VAR)
    if env and not Path(env).is_dir():
        raise CorpusNotFoundError(f"${ENV_VAR}={env} is not a folder", _how_to(spec, split))
    tried = []
    if source in ("auto", "local"):
        for origin, folder in candidate_folders(corpus):
            if not folder.is_dir():
                tried.append(f"{origin} {folder} (absent)")
                continue
            try:
                path = _split_file(folder, spec, split)
            except CorpusError as e:  # e.g. the shared WikiText-2 copy has no train split
                tried.append(f"{origin}: {e}")
                continue
            return load_local(path.parent, corpus, split, heading_rule)  # a bad file there is an error
    if source in ("auto", "datasets"):
        try:
            return load_datasets(corpus, split, heading_rule)
        except CorpusNotFoundError as e:
            if source == "datasets":
                raise
            tried.append(e.reason)
    raise CorpusNotFoundError(f"no source has {spec.title} {split!r}; tried: {'; '.join(tried)}", _how_to(spec, split))


def load_corpus(corpus: str = "wikitext-2", splits: Iterable[str] = ("valid", "test"), **kw) -> dict[str, Split]:
    """``{split: Split}`` for several splits of one corpus (same keyword arguments as ``load_split``)."""
    splits = tuple(splits)
    for s in splits:
        _check_args(corpus, s, kw.get("source", "auto"), kw.get("heading_rule", "balanced"))
    return {s: load_split(corpus, s, **kw) for s in splits}


def _how_to(spec: CorpusSpec, split: str) -> str:
    files = " or ".join(p.format(split=split) for p in spec.file_patterns)
    return (f"To provide {spec.title}: (1) a local folder: pass data_dir=<folder holding {files}>, or set "
            f"{ENV_VAR} to a folder holding {spec.key}/{files} (the layout of the official zip); or "
            f"(2) install the `datasets` library (pip install datasets) on a machine with network access, "
            f"which downloads {HF_DATASET}/{spec.hf_config}.")
