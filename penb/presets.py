"""Presets: one frozen configuration per chapter and preset name.

Every chapter declares its configuration once, in the module that ``penb.registry.PRESET_MODULES`` names
(``penb/chapters/<chapter>/presets.py``):

* ``PAPER``: the published settings (a flat dict of literals);
* ``QUICK`` and ``SMOKE``: overrides of ``PAPER`` (so the difference can be printed);
* optionally ``check(cfg)``: raises ``ValueError`` for impossible values.

``resolve(chapter, preset, **overrides)`` validates everything *before* any work starts:
an unknown chapter, preset or key, a value of the wrong type, or an impossible value
raises ``ValueError`` with the valid choices. ``None`` overrides mean "take the preset's".
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
from collections.abc import Mapping
from typing import Any, Iterator

import pandas as pd

from penb.config_checks import (EXECUTION_KNOBS, GROUPS, RECIPE_KNOBS, cross_check,  # noqa: F401 (re-exported)
                                group_knobs, require, require_finite, require_ints, require_names, suggest, ungroup)
from penb.device import check_device, resolve_device
from penb.registry import PRESET_MODULES

PRESETS = ("smoke", "quick", "deep", "deep_v2", "deep_v3", "slice", "gpu", "lease", "paper")
# ``gpu`` (paper-sized models on a shortened schedule, about a GPU-hour a chapter) exists only for the chapters
# that define ``GPU``; it refuses a machine without CUDA unless ``device="cpu"`` is given explicitly. ``lease``
# (the headline comparisons at paper size in one short GPU lease, ``python -m penb lease``) exists only for the
# chapters that define ``LEASE``; the lease command refuses it without CUDA in the same way. ``slice`` (issue 43:
# many small runs trained as batches in one GPU call of at most 9 minutes, ``python -m penb slice``) exists only for
# the chapters that define ``SLICE``. All three are refused on a machine without CUDA (:data:`GPU_ONLY`) unless
# ``device="cpu"`` is given, except while an archived store made on a GPU is read (``penb.device.archived``). ``deep``
# (issue 58: a figure's cells at fixed budgets where the protocol can decide, ``penb.sizing.DEEP_RULE``) exists only for
# the chapters that define ``DEEP``; the CPU trains it (estimated 80 minutes on the 2-core AVX-512 AMD host;
# measured 99 on a 2-core Intel host, book/archived/key_findings-deep) or GPU calls continue it. ``deep_v2`` (the same
# figure under DEEP_RULE v2, ``penb.sizing``: N = 128,000, about 5.4 CPU-hours) and ``deep_v3`` (its V 256 trunks
# continued to the text's 300,000, DEEP_RULE v3, about 4 CPU-hours left) are trained on the CPU only by the long run
# (``python -m penb long-run``, ``device="cpu"`` given) or by GPU calls, so both are in GPU_ONLY.
OPTIONAL = ("deep", "deep_v2", "deep_v3", "slice", "gpu", "lease")
GPU_ONLY = ("deep_v2", "deep_v3", "slice", "gpu", "lease")

# Seeds (the grading protocol, DESIGN.md). Three disjoint sets (a test checks they never meet):
# * SEARCH_SEEDS: regime searches (every seed in a chapter's search_log.csv or in
#   shared/anchors/cpu-regime-probes.md);
# * PILOT_SEEDS: the runs that size the seed counts. 1001-1005 graded protocols 1 and 2 (sessions 3-5); issue 22
#   made them the pilot: each graded cell's seed count in the quick presets comes from their per-seed spread;
# * CONFIRMATION_SEEDS: grading, from issue 22 on. A cell takes the first k (``confirmation(k)``), k chosen by the
#   power calculation and written with its reason in the chapter's presets.
# The paper preset keeps the official replication seeds.
SEARCH_SEEDS = (0, 1, 2, 111, 222, 333, 900)
PILOT_SEEDS = (1001, 1002, 1003, 1004, 1005)
CONFIRMATION_SEEDS = (2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008, 2009, 2010)


# Seeds of a graded cell at the quick preset (issue 26): the fewest the rules take. The pilot's power calculation
# sized 4-6 for protocol 2, but under protocol 3 every quick comparison of the texts' claims is still learning (the
# 2026-11-25 build from an empty store: none of 43 on trained models), so more seeds decided no verdict in force,
# and the book took 79 minutes on two cores with them; with 3 it took 51 (idle, fp32 throughout, from an empty store,
# 2026-11-25; key_findings 13). Chapters whose cells already took 3 keep their own reasons.
QUICK_SEEDS = 3

# How the quick and slice presets choose their cells, seeds and budgets (issues 41, 43): penb.sizing, re-exported.
from penb.sizing import (DEEP_RULE, FREQ_DEEP_RULE, QUICK_CLAIM_CPU_MIN, QUICK_RULE, SLICE_MINUTES,  # noqa: E402,F401
                         SLICE_RULE, SLICE_S4D, SLICE_SEEDS, SLICE_STOP)


def confirmation(k: int) -> tuple:
    """The first ``k`` confirmation seeds (a graded cell's seeds)."""
    if not 1 <= k <= len(CONFIRMATION_SEEDS):
        raise ValueError(f"a cell takes 1-{len(CONFIRMATION_SEEDS)} confirmation seeds, not {k}")
    return CONFIRMATION_SEEDS[:k]


def left_out(table: dict, cfg, key) -> str:
    """Why ``cfg``'s preset leaves ``key`` (a model, section or hypothesis) out, from a chapter's ``table`` of
    ``{(preset, key): reason}``; "" where the table says nothing (a user's own choice, or not left out)."""
    return table.get((getattr(cfg, "preset", None), key), "")


class Config(Mapping):
    """An immutable mapping with attribute access, e.g. ``cfg.inits``.

    ``cfg.key()`` is a stable hash of the whole configuration (used by the run store).
    """

    def __init__(self, values: Mapping[str, Any], chapter: str = "", preset: str = ""):
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "chapter", chapter)
        object.__setattr__(self, "preset", preset)

    def __getitem__(self, k: str) -> Any:
        return self._values[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, k: str) -> Any:
        try:
            return self._values[k]
        except KeyError:
            raise AttributeError(f"config of {self.chapter!r} has no field {k!r}; fields: {sorted(self._values)}") from None

    def __setattr__(self, k, v):
        raise TypeError("Config is frozen; use cfg.replace(...)")

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Config[{self.chapter}:{self.preset}]({body})"

    def replace(self, **changes: Any) -> "Config":
        """A copy with some fields changed (unknown fields raise)."""
        unknown = set(changes) - set(self._values)
        if unknown:
            raise ValueError(f"unknown field(s) {sorted(unknown)}; valid: {sorted(self._values)}")
        return Config({**self._values, **changes}, self.chapter, self.preset)

    def as_dict(self) -> dict:
        return dict(self._values)

    def key(self) -> str:
        """sha256 (16 hex digits) of the whole configuration, chapter and preset excluded."""
        blob = json.dumps(self._values, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def chapters() -> list[str]:
    """The names of all chapters that declare presets (the registry ``penb.registry.PRESET_MODULES``)."""
    return sorted(PRESET_MODULES)


def _module(chapter: str):
    name = chapter.replace("-", "_")
    if name not in PRESET_MODULES:
        raise ValueError(f"unknown chapter {chapter!r}{suggest([chapter], PRESET_MODULES)}; "
                         f"valid chapters: {', '.join(chapters())}")
    return importlib.import_module(PRESET_MODULES[name])


def table(chapter: str) -> dict[str, dict[str, Any]]:
    """All presets of a chapter as full dicts: {preset: {key: value}}."""
    mod = _module(chapter)
    paper = dict(mod.PAPER)
    out = {}
    for name in PRESETS:
        if name in OPTIONAL and not hasattr(mod, name.upper()):
            continue
        over = dict(getattr(mod, name.upper(), {})) if name != "paper" else {}
        bad = set(over) - set(paper)
        if bad:  # a bug in the chapter module, not user input
            raise KeyError(f"{chapter}: preset {name} overrides unknown keys {sorted(bad)}")
        out[name] = {**paper, **over}
    return out


def _coerce(chapter: str, key: str, value: Any, like: Any) -> Any:
    """Check ``value`` against the type of the paper value ``like``; allow int -> float and list -> tuple."""
    if isinstance(like, bool):
        ok = isinstance(value, bool)
    elif isinstance(like, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(like, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(like, (tuple, list)):
        ok = isinstance(value, (tuple, list))
        value = tuple(value) if ok else value
    elif like is None:
        ok = True
    else:
        ok = isinstance(value, type(like))
    if not ok:
        raise ValueError(
            f"{chapter}: parameter {key!r} must be {type(like).__name__} (like {like!r}), got {value!r}"
        )
    return value


def resolve(chapter: str, preset: str = "quick", **overrides: Any) -> Config:
    """The frozen configuration of ``chapter`` at ``preset`` with ``overrides`` applied.

    Raises ``ValueError`` for an unknown chapter, preset or key, a wrongly typed value, or a
    value the chapter's ``check`` rejects.
    """
    mod = _module(chapter)
    presets = table(chapter)
    if preset not in presets:
        raise ValueError(f"unknown preset {preset!r} for {chapter}{suggest([preset], presets)}; "
                         f"valid presets: {', '.join(presets)}")
    base = presets[preset]
    given = {k: v for k, v in ungroup(chapter, overrides, base).items() if v is not None}
    unknown = set(given) - set(base)
    if unknown:
        raise ValueError(f"{chapter}: unknown parameter(s) {sorted(unknown)}{suggest(unknown, base)}; "
                         f"valid: {sorted(base)}")
    values = dict(base)
    for k, v in given.items():
        values[k] = _coerce(chapter, k, v, base[k])
    if "device" in values:
        check_device(values["device"])
    require_finite(chapter, values)
    if preset in GPU_ONLY and "device" in values and "device" not in given:
        require(resolve_device(values["device"]).type == "cuda",
                f"{chapter}: the {preset} preset is sized for a GPU (hours on a CPU) and this machine has no "
                f"CUDA device; use preset 'quick', or pass device='cpu' to run it here anyway")
    cfg = Config(values, chapter, preset)
    check = getattr(mod, "check", None)
    if check is not None:
        check(cfg)
    cross_check(chapter, values)
    return cfg


# Environment variable that ``penb.notebook.run_chapter`` sets while a chapter runs at a preset other than
# the one the book was asked for (``book_preset``), so that the chapter says so in its output.
REQUESTED = "PENB_REQUESTED_PRESET"


def from_parameters(chapter: str, namespace: Mapping[str, Any]) -> Config:
    """:func:`resolve` for a notebook: ``namespace`` is its globals after the parameters cell.

    Takes ``preset``, every configuration key of ``chapter`` that ``namespace`` defines (None: the preset's
    value) and its grouped parameters (:data:`GROUPS`: ``execution``, ``recipe``), so a parameter added to the
    cell cannot be forgotten in the call. Where the book was asked for another preset that this chapter lacks
    (``$PENB_REQUESTED_PRESET``, see :func:`book_preset`), prints which preset ran instead.
    """
    if "preset" not in namespace:
        raise ValueError(f"{chapter}: the namespace defines no 'preset'")
    keys = table(chapter)["paper"]
    cfg = resolve(chapter, namespace["preset"], **{k: namespace[k] for k in [*keys, *GROUPS] if k in namespace})
    asked = os.environ.get(REQUESTED)
    if asked and asked != cfg.preset:
        device = f" (device {cfg['device']!r})" if "device" in cfg else ""
        print(f"The book was built at preset {asked!r}, which this chapter does not have: it ran its "
              f"{cfg.preset!r} preset instead{device}.")
    return cfg


def book_preset(chapter: str, preset: str, settable=None) -> tuple[str, dict, str]:
    """What ``python -m penb run-all --preset <preset>`` runs ``chapter`` at: (preset, overrides, note).

    A chapter that has ``preset`` runs it as it is (note ""). A chapter without an optional preset
    (:data:`OPTIONAL`: ``gpu``) runs its ``quick`` preset instead, with ``device="auto"`` where it has a
    device that can be set (``settable``: the parameters its notebook declares; None: every key), so a
    GPU serves it too, and the note says so. Any other preset is returned unchanged (an unknown one is
    refused by :func:`resolve`).
    """
    presets = table(chapter)
    if preset in presets or preset not in OPTIONAL:
        return preset, {}, ""
    can = "device" in presets["quick"] and (settable is None or "device" in settable)
    over = {"device": "auto"} if can else {}
    how = " with device='auto'" if over else ""
    return "quick", over, f"{chapter} has no {preset!r} preset: running its 'quick' preset{how} instead"


def diff(chapter: str, preset: str) -> list[tuple[str, Any, Any]]:
    """Rows (key, paper value, preset value) where ``preset`` differs from the paper preset."""
    t = table(chapter)
    return [(k, t["paper"][k], t[preset][k]) for k in t["paper"] if t["paper"][k] != t[preset][k]]


def differences(cfg: Config):
    """A table (pandas, index ``key``) of where the resolved ``cfg`` differs from the chapter's paper
    preset: column ``paper`` and a column named after ``cfg``'s preset, overrides included."""
    paper = table(cfg.chapter)["paper"]
    rows = [(k, paper[k], cfg[k]) for k in paper if paper[k] != cfg[k]]
    label = cfg.preset if cfg.preset != "paper" else "this run"
    return pd.DataFrame(rows, columns=["key", "paper", label]).set_index("key")
