"""The chapter's figures (plain data in, a matplotlib Figure out; the notebook stamps provenance).

``context_sets(data)``: Irie's Fig. 1 from the dict of ``penb.chapters.irie.analysis.figure1``, one
panel per input sequence: rows are the inputs and the layers (bottom to top), columns are positions;
each box holds the context as a set, grey lines are the attention connections of the model's mask,
and a box is filled where its context set differs between the two sequences (Irie's colouring). A
thick outline marks where the model's output differs once the position's own query is counted as well.

Question 4 (trained causal Transformers with and without PE, tables of ``penb.chapters.irie.q4``):
``results(order, lm, ceiling, ...)``: the graded cells and their context, (a) order-task test token
accuracy per model and (b) language-model test perplexity, each seed a point over the mean and its
95% interval over seeds; ``exploratory(positions, order_use)``: (a) accuracy per output step,
(b) the loss a language model adds on a window's last token when the earlier inputs are shuffled
(``penb.chapters.irie.q4_tables.lm_order_use``); ``training(curves_order, curves_lm)``: the training curves.
``exact_checks(table, tol)``: the exact claims' largest deviations and their contrasts, per seed.
Colours: orange = no PE, blue = with PE; solid = the deepest model, dashed = one layer.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from penb.claims.intervals import seed_interval

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


def _points(ax, table, ylabel: str, log: bool = False):
    """Per (layers, encoding) row of ``table`` (columns layers, encoding, mean, lo, hi, values,
    graded): the mean over seeds with its 95% interval over seeds, each seed as a hollow point over
    it, grouped by depth (no PE, then PE); a graded cell's mean is a filled square."""
    depths = sorted(table.layers.unique())
    for i, n in enumerate(depths):
        part = table[table.layers == n].sort_values("encoding", key=lambda e: e != "none")
        for j, (_, row) in enumerate(part.iterrows()):
            x = i + (j - 0.5) * 0.38
            colour = _colour(row.encoding)
            label = "no PE" if row.encoding == "none" else f"{row.encoding} PE"
            ax.errorbar(x, row["mean"], yerr=[[row["mean"] - row.lo], [row.hi - row["mean"]]], capsize=4,
                        marker="s" if row.get("graded", False) else "o", ms=6, color=colour, lw=1.5,
                        zorder=2, label=label)
            v = np.asarray(row["values"], float)
            jitter = np.linspace(-0.07, 0.07, len(v)) if len(v) > 1 else np.zeros(len(v))
            ax.scatter(x + jitter, v, s=18, facecolors="white", edgecolors=colour, lw=1.0, zorder=3)
            ax.annotate(f"{row['mean']:.3g}", (x, row.hi), ha="center", va="bottom", fontsize=7,
                        xytext=(0, 3), textcoords="offset points")
    ax.set_xticks(range(len(depths)), [f"{n} layer{'s' if n > 1 else ''}" for n in depths])
    ax.set_xlim(-0.6, len(depths) - 0.4)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.scatter([], [], s=18, facecolors="white", edgecolors="0.3", label="one seed")
    if "graded" in table and table["graded"].any():
        ax.plot([], [], marker="s", color="0.3", ls="none", label="graded cell (mean, 95% interval)")
    handles, labels = ax.get_legend_handles_labels()
    keep = dict(zip(labels, handles))
    ax.legend(list(keep.values()), list(keep.keys()), fontsize=7, loc="best")


def results(order, lm, ceiling: float | None, margin: float, vocab_size: int, order_label: str,
            lm_label: str, width: float = 10.0):
    """The graded Question 4 figure from ``q4_tables.order_table`` and ``q4_tables.lm_table``: (a) order-task test
    token accuracy per model with the order-blind ceiling (dotted; band: the test-set noise above it,
    ``margin``) and chance 1/V, (b) language-model test perplexity per model; every seed a point."""
    fig, (a, c) = plt.subplots(1, 2, figsize=(width, 3.9))
    _points(a, order, "test token accuracy")
    if ceiling is not None:
        a.axhline(ceiling, color="0.3", ls=":", lw=1)
        a.axhspan(ceiling, ceiling + margin, color="0.3", alpha=0.12, lw=0)
        a.annotate("order-blind ceiling", (-0.55, ceiling), xytext=(0, 3), textcoords="offset points",
                   fontsize=7, color="0.3", ha="left", va="bottom")
    a.axhline(1 / vocab_size, color="0.6", ls="-", lw=0.8)
    a.set_ylim(0, 1.08)
    a.set_title(f"(a) {order_label}", fontsize=9)
    _points(c, lm, "test perplexity (lower is better)")
    c.set_ylim(0, float(np.nanmax(lm.hi)) * 1.15)
    c.set_title(f"(b) {lm_label}", fontsize=9)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def exploratory(positions, order_use, width: float = 10.0):
    """Not graded: (a) order-task token accuracy per output step (band: the seeds' range), (b) the
    loss a language model adds on a window's last token when the earlier inputs are shuffled
    (``q4_tables.lm_order_use``), every seed a point."""
    fig, (b, d) = plt.subplots(1, 2, figsize=(width, 3.9))
    for (n, e), part in positions.groupby(["layers", "encoding"]):
        b.plot(part.step, part.accuracy, _style(n), color=_colour(e), marker="o", ms=3, label=part.model.iloc[0])
        b.fill_between(part.step, part.low, part.high, color=_colour(e), alpha=0.15, lw=0)
    b.set_xlabel("output step (1 = first token written)")
    b.set_ylabel("test token accuracy")
    b.set_ylim(0, 1.05)
    b.set_title("(a) order task, per output step (band: seeds' range)", fontsize=9)
    b.legend(fontsize=7, loc="lower left")
    _points(d, order_use, "nats lost on the last token")
    d.axhline(0, color="0.3", lw=0.8)
    d.set_title("(b) LM: earlier inputs shuffled, last one kept", fontsize=9)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
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


def exact_checks(table, tol: float, width: float = 14.5):
    """Per seed (rows of ``penb.chapters.irie.analysis.exact_table``), on a log scale: left, the
    largest deviations the exact claims require to be rounding (below ``tol``); right, the
    smallest changes Q3 and the contrasts require to be real (above ``tol``). Hollow points: one
    seed each; filled: the mean over seeds with its 95% Student-t interval over seeds."""
    groups = ((("q1", "Q1: |f(Px) - Pf(x)|\nno mask, no PE"), ("q5", "Q5: last output,\n1 layer, no PE"),
               ("q5_mid_same", "Q5: earlier,\nsame context"),
               ("lin_q5", "Sec. 4: last output,\n1 linear layer"),
               ("linear", "Sec. 4: parallel vs\nrecurrence")),
              (("q3", "Q3: later outputs,\n>= 2 layers, no PE"), ("q5_mid", "Q5: earlier,\ncontext differs"),
               ("lin_q3", "Sec. 4: later outputs,\n>= 2 linear layers"), ("q1_contrast", "Q1 contrast:\nPE or causal"),
               ("q5_contrast", "Q5 contrast:\n1 layer, PE"), ("lin_q5_contrast", "Sec. 4 contrast:\n1 linear, PE"),
               ("linear_contrast", "Sec. 4 contrast:\nsoftmax")))
    fig, axes = plt.subplots(1, 2, figsize=(width, 3.8), gridspec_kw={"width_ratios": [len(g) for g in groups]})
    floor = 1e-18                                     # exact zeros drawn at the bottom of the axis
    for ax, cols, title in zip(axes, groups, ("must be rounding (largest over permutations)",
                                              "must differ (smallest over permutations)")):
        for j, (col, _) in enumerate(cols):
            v = np.maximum(table[col].to_numpy(float), floor)
            jitter = np.linspace(-0.1, 0.1, len(v)) if len(v) > 1 else np.zeros(len(v))
            mean, lo, hi = seed_interval(v)
            ax.errorbar(j, mean, yerr=[[mean - lo], [hi - mean]], marker="o", color=PE, capsize=4, zorder=2,
                        label="mean over seeds, 95% interval" if j == 0 else None)
            ax.scatter(j + jitter, v, s=18, facecolors="white", edgecolors=NO_PE, zorder=3,
                       label="one seed" if j == 0 else None)
        ax.axhline(tol, color="0.3", ls=":", lw=1, label=f"rule's threshold {tol:g}")
        ax.set_yscale("log")
        ax.set_ylim(floor / 3, 1e2)
        ax.set_xticks(range(len(cols)), [label for _, label in cols], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("max |difference| (float64)")
        ax.legend(fontsize=7, loc="center right")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig
