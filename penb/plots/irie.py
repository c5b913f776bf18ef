"""Irie's Fig. 1: what each layer of a causal Transformer without PE sees, for two orderings.

``context_sets(data)`` takes the dict of :func:`penb.irie.figure1` and draws one panel per input
sequence: rows are the inputs and the layers (bottom to top), columns are positions; each box holds
the context as a set, grey lines are the attention connections of the model's mask, and a box is
filled where its context set differs between the two sequences (Irie's colouring). A thick outline
marks where the model's output differs once the position's own query is counted as well.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

DIFF, SAME, EDGE = "#f4a261", "#eeeeee", "#1d3557"


def context_sets(data: dict, width: float = 11.0):
    """Figure with one panel per sequence of ``data`` (from ``penb.irie.figure1``)."""
    seqs, L, mask = data["seqs"], data["layers"], data["mask"]
    T = len(seqs[0])
    fig, axes = plt.subplots(1, 2, figsize=(width, 1.3 * (L + 1) + 1.0))
    for ax, seq, sets in zip(axes, seqs, data["sets"]):
        for layer in range(1, L + 1):                              # connections: key s -> query t
            for t in range(T):
                for s in range(T):
                    if mask[t, s]:
                        ax.plot([s, t], [layer - 1 + 0.22, layer - 0.22], color="0.75", lw=0.8, zorder=1)
        for layer in range(L + 1):
            for t in range(T):
                filled = bool(data["set_differs"][layer, t])
                outlined = bool(data["query_differs"][layer, t])
                ax.text(t, layer, sets[layer][t], ha="center", va="center", fontsize=9 if layer < 2 else 8,
                        zorder=3, bbox=dict(boxstyle="round,pad=0.35", fc=DIFF if filled else SAME,
                                            ec=EDGE if outlined else "0.6", lw=2.0 if outlined else 0.6))
        ax.set_xlim(-0.6, T - 0.4)
        ax.set_ylim(-0.5, L + 0.5)
        ax.set_xticks(range(T), [f"t={t + 1}" for t in range(T)])
        ax.set_yticks(range(L + 1), ["input"] + [f"layer {n}" for n in range(1, L + 1)])
        ax.set_title(f"input ({', '.join(seq)})")
        for side in ("top", "right", "left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.tick_params(length=0)
    handles = [Patch(fc=DIFF, ec="0.6", label="context set differs between the two inputs (Irie's Fig. 1)"),
               Patch(fc=SAME, ec=EDGE, lw=2.0, label="output differs once the position's own query is counted"),
               Line2D([], [], color="0.75", label="attention allowed by the model's causal mask")]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.03), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig
