"""Checks of a chapter's resolved values that hold for every chapter (``penb.presets.resolve`` runs them after
the chapter's own ``check``), :func:`require`, the building block of every chapter check, with its helpers for
names and ints and near misses (:func:`suggest`), and the grouped parameters (``execution``, ``recipe``) laid out as
their knobs (:func:`ungroup`)."""
from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any, Iterator

from penb.device import check_amp


def _numbers(value: Any, where: str) -> Iterator[tuple[str, float]]:
    """(path, number) of every float inside ``value`` (tuples, lists and dicts searched)."""
    if isinstance(value, float):
        yield where, value
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _numbers(v, f"{where}[{i}]")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _numbers(v, f"{where}[{k!r}]")


def require_finite(chapter: str, values: Mapping[str, Any]) -> None:
    """``ValueError`` naming the first NaN or infinite number anywhere in ``values`` (checked first)."""
    for where, v in (hit for k, v in values.items() for hit in _numbers(v, k)):
        require(math.isfinite(v), f"{chapter}: {where} must be a finite number, got {v!r}")


def cross_check(chapter: str, values: Mapping[str, Any]) -> None:
    """Checks across fields that hold for every chapter, after the chapter's own: ``amp="bf16"`` (also per
    model, in ``per_core``) only where the device resolves to CUDA or a CPU with AMX; ``warmup`` no larger than ``steps`` (per model too, where
    ``per_core`` overrides them)."""
    if "device" in values:
        amps = {values.get("amp", "none")} | {o.get("amp", "none") for o in dict(values.get("per_core") or {}).values()
                                              if isinstance(o, Mapping)}
        for amp in sorted(a for a in amps if isinstance(a, str)):
            try:
                check_amp(amp, values["device"])
            except ValueError as e:
                require(False, f"{chapter}: {e}")
    if "warmup" in values and "steps" in values:
        runs = {"": {}} | {f" for {c}": o for c, o in dict(values.get("per_core") or {}).items()
                           if isinstance(o, Mapping)}
        for label, over in runs.items():
            w, n = over.get("warmup", values["warmup"]), over.get("steps", values["steps"])
            if isinstance(w, int) and isinstance(n, int):
                require(w <= n, f"{chapter}: warmup ({w}) must not exceed steps ({n}){label}")


def require(cond: bool, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``cond``: the building block of chapter checks."""
    if not cond:
        raise ValueError(message)


# Knobs a notebook takes as one dict parameter each rather than one by one (issue 67), by the parameter's name: a
# chapter's group holds those of its knobs that its config has, and each is still accepted on its own (papermill's and
# the CLI's ``-p executor submitit``, ``-p warmup 100``); ``python -m penb params CHAPTER`` lists them with their
# preset values. ``execution``: how a chapter's runs execute rather than what they train. ``recipe``: the training
# recipe and the grading details every chapter shares, rather than what its claims vary (``lr`` stays in the cell).
EXECUTION_KNOBS = ("executor", "cluster", "partition", "gpus_per_job", "time_limit_min", "array_parallelism",
                   "batch_runs", "workers", "checkpoint_every", "amp")
RECIPE_KNOBS = ("warmup", "schedule", "doubling", "earlier", "betas", "held_out", "bootstrap")
GROUPS = {"execution": EXECUTION_KNOBS, "recipe": RECIPE_KNOBS}


def group_knobs(group: str, keys) -> list[str]:
    """The knobs of :data:`GROUPS` ``[group]`` that ``keys`` (a chapter's config) has, in the group's order."""
    return [k for k in GROUPS[group] if k in keys]


def ungroup(chapter: str, overrides: Mapping[str, Any], keys) -> dict:
    """``overrides`` with each group's dict (:data:`GROUPS`; None: nothing) laid out as keys of their own;
    ``ValueError`` in one line for a group that is not a dict, names a key outside the group's knobs in ``keys`` (the
    chapter's config), or sets a key also given on its own."""
    out = {k: v for k, v in overrides.items() if k not in GROUPS}
    for group in GROUPS:
        given = overrides.get(group)
        if given is None:
            continue
        mine = group_knobs(group, keys)
        require(isinstance(given, Mapping), f"{chapter}: {group} must be a dict of {', '.join(mine)}, got {given!r}")
        bad = sorted(set(given) - set(mine))
        require(not bad, f"{chapter}: {group} has no key(s) {bad}{suggest(bad, mine)}; "
                         f"this chapter's: {', '.join(mine)}")
        twice = sorted(k for k in given if out.get(k) is not None)
        require(not twice, f"{chapter}: {twice} given both on its own and in {group}")
        out.update(given)
    return out


def suggest(unknown, valid) -> str:
    """' (did you mean 'inits'?)' for near misses among ``valid``, else ''."""
    hits = [m for u in sorted(unknown) for m in difflib.get_close_matches(str(u), list(valid), n=1)]
    return f" (did you mean {', '.join(repr(h) for h in hits)}?)" if hits else ""


def require_ints(cfg, keys, minimum: int = 1) -> None:
    """``ValueError`` unless every ``cfg[k]`` of ``keys`` is an int (not a bool) >= ``minimum``."""
    for k in keys:
        v = cfg[k]
        require(isinstance(v, int) and not isinstance(v, bool) and v >= minimum,
                f"{k} must be an int >= {minimum}, got {v!r}")


def require_names(name: str, values, allowed) -> None:
    """``ValueError`` unless ``values`` is a non-empty sequence of distinct names out of ``allowed``."""
    require(len(values) >= 1 and len(set(values)) == len(values) and set(values) <= set(allowed),
            f"{name} must be distinct names among {', '.join(allowed)}, got {values!r}")
