"""The chapter's figures (plain data in, a matplotlib Figure out; the notebook stamps provenance).

``context_sets(data)``: Irie's Fig. 1 from the dict of ``penb.chapters.irie.analysis.figure1``, one
panel per input sequence: rows are the inputs and the layers (bottom to top), columns are positions;
each box holds the context as a set, grey lines are the attention connections of the model's mask,
and a box is filled where its context set differs between the two sequences (Irie's colouring). A
thick outline marks where the model's output differs once the position's own query is counted as well.

Question 4 (trained causal Transformers with and without PE, tables of ``penb.chapters.irie.q4``):
``results(order, positions, lm, order_use, ceiling, ...)``: four panels, (a) order-task test token
accuracy per model with its CI and the order-blind ceiling, (b) the same per output step,
(c) language-model test perplexity with its CI, (d) the loss a language model adds on a window's
last token when the earlier inputs are shuffled (``penb.chapters.irie.q4.lm_order_use``).
``training(curves_order, curves_lm)``: the training curves of both studies.
Colours: orange = no PE, blue = with PE; solid = the deepest model, dashed = one layer.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

DIFF, SAME, EDGE = "#f4a261", "#eeeeee", "#1d3557"
NO_PE, PE = "#e76f51", "#264653"


def context_sets(data: dict, width: float = 11.0):
    """Figure with one panel per sequence of ``data`` (from ``penb.chapters.irie.analysis.figure1``)."""
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


# -- Question 4 ------------------------------------------------------------------------------------------
def _colour(encoding: str) -> str:
    return NO_PE if encoding == "none" else PE


def _style(layers: int) -> str:
    return "--" if layers == 1 else "-"


def _bars(ax, table, value: str, ylabel: str):
    """Bars grouped by depth (no PE, PE), with CI error bars and the value printed on each bar."""
    depths = sorted(table.layers.unique())
    for i, n in enumerate(depths):
        part = table[table.layers == n].sort_values("encoding", key=lambda e: e != "none")
        for j, (_, row) in enumerate(part.iterrows()):
            x = i + (j - 0.5) * 0.38
            err = [[row[value] - row.ci_low], [row.ci_high - row[value]]]
            ax.bar(x, row[value], 0.36, color=_colour(row.encoding), yerr=err, capsize=3,
                   label="no PE" if row.encoding == "none" else f"{row.encoding} PE")
            text = f"{row[value]:.3g}" if abs(row[value]) >= 1e-3 else "0"
            ax.annotate(text, (x, row.ci_high), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(depths)), [f"{n} layer{'s' if n > 1 else ''}" for n in depths])
    ax.set_ylabel(ylabel)
    handles, labels = ax.get_legend_handles_labels()
    keep = dict(zip(labels, handles))
    return list(keep.values()), list(keep.keys())


def results(order, positions, lm, order_use, ceiling: float | None, vocab_size: int, order_label: str,
            lm_label: str, width: float = 10.0):
    """The Question 4 figure; ``order``/``lm``/``order_use`` from ``order_table``/``lm_table``/
    ``lm_order_use``, ``positions`` from ``position_accuracy``, ``ceiling`` from ``blind_ceiling``
    (None: not drawn)."""
    fig, ((a, b), (c, d)) = plt.subplots(2, 2, figsize=(width, 7.2))
    handles, labels = _bars(a, order, "token_accuracy", "test token accuracy")
    if ceiling is not None:
        for ax in (a, b):
            ax.axhline(ceiling, color="0.3", ls=":", lw=1)
        a.annotate("order-blind\nceiling", ((order.layers.nunique() - 1) / 2, ceiling), xytext=(0, 3),
                   textcoords="offset points", fontsize=7, color="0.3", ha="center", va="bottom")
    a.axhline(1 / vocab_size, color="0.6", ls="-", lw=0.8)
    a.set_ylim(0, 1.08)
    a.set_title(f"(a) {order_label}", fontsize=9)
    for (n, e), part in positions.groupby(["layers", "encoding"]):
        b.plot(part.step, part.accuracy, _style(n), color=_colour(e), marker="o", ms=3, label=part.model.iloc[0])
        b.fill_between(part.step, part.low, part.high, color=_colour(e), alpha=0.15, lw=0)
    b.set_xlabel("output step (1 = first token written)")
    b.set_ylabel("test token accuracy")
    b.set_ylim(0, 1.05)
    b.set_title("(b) per output step (band: seeds' range)", fontsize=9)
    b.legend(fontsize=7, loc="lower left")
    _bars(c, lm, "perplexity", "test perplexity (lower is better)")
    top = float(np.nanmax(lm.ci_high))
    c.set_ylim(0, top * 1.15)
    c.set_title(f"(c) {lm_label}", fontsize=9)
    _bars(d, order_use, "nats_lost", "nats lost on the last token")
    d.axhline(0, color="0.3", lw=0.8)
    d.set_title("(d) LM: earlier inputs shuffled, last one kept", fontsize=9)
    a.legend(handles, labels, fontsize=7, loc="upper left")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    return fig


def training(order_curves, lm_curves, width: float = 10.0):
    """Training curves: order-task training accuracy and language-model training loss (each seed a line)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(width, 3.4))
    for ax, df, col, ylabel in ((a, order_curves, "accuracy", "training token accuracy"),
                                (b, lm_curves, "loss", "training loss (nats per token)")):
        seen = set()
        for (n, e, s), part in df.groupby(["layers", "encoding", "seed"]):
            label = None if (n, e) in seen else part.model.iloc[0]
            seen.add((n, e))
            ax.plot(part.step, part[col], _style(n), color=_colour(e), lw=1, alpha=0.8, label=label)
        ax.set_xlabel("update")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    a.set_title("(a) order task", fontsize=9)
    b.set_title("(b) language model", fontsize=9)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig
