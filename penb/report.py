"""Provenance: every number and figure says which run made it.

``provenance(cfg, ...)`` gives a one-line string (preset, device, seeds, steps, ...) to print
under a table; ``stamp(fig, cfg, ...)`` writes the same line into a figure's bottom margin;
``config_table(cfg)`` shows a run's settings as a short table (where they differ from the paper's).
"""
from __future__ import annotations

from typing import Any

from penb import presets
from penb.claims.display import HTML, esc
from penb.device import resolve_device

PROVENANCE_KEYS = ("seeds", "seed", "steps", "iterations", "inits", "batch_size")


def provenance(cfg, **extra: Any) -> str:
    """'preset quick · device cpu · seeds (0, 1, 2) · steps 6000' for a resolved config."""
    parts = [f"preset {cfg.preset}"]
    if "device" in cfg:
        parts.append(f"device {resolve_device(cfg['device'])}")
    parts += [f"{k} {cfg[k]}" for k in PROVENANCE_KEYS if k in cfg]
    parts += [f"{k} {v}" for k, v in extra.items()]
    return " · ".join(parts)


def stamp(fig, cfg, **extra: Any):
    """Write ``provenance(cfg)`` small and grey at the bottom-left of ``fig``; returns ``fig``."""
    fig.text(0.005, 0.002, provenance(cfg, **extra), fontsize=7, color="0.4", ha="left", va="bottom")
    return fig


def _show(v: Any) -> str:
    """A setting's value, short: tuples and lists without brackets, dicts as 'key: value' pairs."""
    if isinstance(v, (tuple, list)):
        return ", ".join(_show(x) for x in v) if v else "(none)"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_show(x)}" for k, x in v.items()) if v else "(none)"
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10_000:
        return f"{v:,}"
    return str(v)


def config_table(cfg):
    """The resolved config as a short table for a chapter page (HTML): the settings in which this run differs
    from the paper's preset, beside the paper's value, and the complete list folded underneath. A run at
    the paper's setting says so in one line instead of an empty table."""
    paper = presets.table(cfg.chapter)["paper"]
    diff = [k for k in cfg if k in paper and paper[k] != cfg[k]]
    label = cfg.preset if cfg.preset != "paper" else "this run"
    style = ('style="table-layout:fixed;width:100%;font-size:.9em"', 'style="width:11em"')

    def rows(keys, cols):
        return "".join("<tr><td><code>" + esc(k) + "</code></td>" + "".join(
            f"<td>{esc(_show(c(k)))}</td>" for c in cols) + "</tr>" for k in keys)

    if diff:
        lead = (f"<p>Preset <b>{esc(cfg.preset)}</b>: {len(diff)} of {len(cfg)} settings differ from the paper's."
                f"</p><table {style[0]}><thead><tr><th {style[1]}>setting</th><th>{esc(label)}</th><th>paper"
                f"</th></tr></thead><tbody>{rows(diff, (cfg.get, paper.get))}</tbody></table>")
    else:
        lead = f"<p>Preset <b>{esc(cfg.preset)}</b>: every one of its {len(cfg)} settings is the paper's.</p>"
    full = (f"<details><summary>All {len(cfg)} settings of this run</summary><table {style[0]}><tbody>"
            f"{rows(list(cfg), (cfg.get,))}</tbody></table></details>")
    return HTML(lead + full)
