"""The scale of a verdict: the vocabulary, length, hidden size and updates a claim was graded at, beside the
scale the text made it at, and the words that say when the first is smaller.

The text's scale comes from the claim's own ``extra`` (vocabulary, length, updates, where the registry
states them) and otherwise from its chapter's ``paper`` preset, which holds the published setting. The
graded scale comes from the chapter's resolved config and what the chapter passed with the grade
(``vocab=...``, ``steps=...``).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from penb.claims.sources import BEYOND
from penb.preflight import largest
from penb.presets import table


FIELDS = ("vocab", "length", "hidden", "updates")
CORES = ("gru", "lstm", "s4d", "transformer")


def _top(v: Any) -> Optional[int]:
    """The largest int in ``v`` (an int, or a sequence or mapping of them), or None."""
    if isinstance(v, Mapping):
        v = list(v.values())
    items = v if isinstance(v, (tuple, list)) else (v,)
    found = [x for x in items if isinstance(x, int) and not isinstance(x, bool)]
    return max(found) if found else None


def _core(key: str) -> Optional[str]:
    return next((c for c in CORES if f".{c}" in key), None)


def _from_values(values: Mapping[str, Any], key: str) -> dict:
    """Scale fields read from a chapter's values: per core where the claim names one."""
    core = _core(key)
    vocab = values.get(f"{core}_vocab") if core else None
    steps = (values.get("per_core") or {}).get(core, {}).get("steps") if core else None
    out = {"vocab": _top(vocab) if vocab is not None else (largest(values, "vocab") or None),
           "length": _top(values.get("length")) or (largest(values, "length") or None),
           "hidden": _top(values.get("hidden")),
           "updates": steps or _top(values.get("steps")) or _top(values.get("iterations"))   # Hansen's: iterations
                      or (largest(values, "steps") or None)}
    return out


# Sources that state no vocabulary, length, hidden size or update count for their claims: Irie's review trains
# nothing (Question 4 cites models of 12, 24 and 42 layers, a depth, not one of FIELDS), so no chapter preset
# stands in for "the text's scale" (issue 28).
NO_SCALE = ("irie",)


def published_scale(claim) -> dict:
    """The scale the text made ``claim`` at ({} for the book's own hypotheses, claims with no chapter and texts
    that state none, :data:`NO_SCALE`). A per-model mapping in ``extra`` (``{"gru": 64, ...}``) gives the
    claim's own model's value."""
    if claim.source == BEYOND or not claim.chapter or claim.key.split(".")[0] in NO_SCALE:
        return {}
    try:
        out = _from_values(table(claim.chapter)["paper"], claim.key)
    except (ValueError, KeyError):
        out = {}
    extra = dict(claim.extra or {})
    core = _core(claim.key)
    for field, name in (("vocab", "vocab"), ("length", "length"), ("updates", "steps")):
        value = extra.get(name)
        if isinstance(value, Mapping) and core in value:          # per model: the claim's own model's
            value = value[core]
        if _top(value) is not None:
            out[field] = value if field == "vocab" else _top(value)
    return {k: v for k, v in out.items() if v is not None}


def graded_scale(key: str, cfg, provenance: Mapping[str, Any]) -> dict:
    """The scale a grade of claim ``key`` was made at, from the chapter's ``cfg`` and the grade's provenance; a
    provenance ``scale`` (a chapter whose config sizes belong to other claims) is taken as it is."""
    if isinstance(provenance.get("scale"), Mapping):
        return {k: v for k, v in provenance["scale"].items() if v is not None}
    out = _from_values(dict(cfg), key) if cfg is not None else {}
    if provenance.get("vocab") is not None:
        out["vocab"] = provenance["vocab"]
    steps = [v for k, v in provenance.items() if k.endswith("steps") and _top(v)]
    if steps:
        out["updates"] = _top(steps[0])
    return {k: v for k, v in out.items() if v is not None}


def _low(v: Any) -> Optional[int]:
    """The smallest int in ``v``."""
    items = list(v.values()) if isinstance(v, Mapping) else (v if isinstance(v, (tuple, list)) else [v])
    found = [x for x in items if isinstance(x, int) and not isinstance(x, bool)]
    return min(found) if found else None


def smaller(graded: Mapping[str, Any], claimed: Mapping[str, Any]) -> list[str]:
    """Phrases for each field where the graded scale is below the text's ("vocabulary 32 vs 256-16,384")."""
    words = {"vocab": "vocabulary", "length": "length", "hidden": "hidden size", "updates": "updates"}
    out = []
    for f in FIELDS:
        g, c = _top(graded.get(f)), _top(claimed.get(f))
        if g is not None and c is not None and g < c:
            out.append(f"{words[f]} {show(graded[f])} vs {show(claimed[f])}")
    return out


def show(v: Any) -> str:
    """'32', '256-16,384' (a range of a sequence)."""
    lo, hi = _low(v), _top(v)
    if lo is None:
        return str(v)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"
