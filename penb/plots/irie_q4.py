"""Irie's Question 4: trained causal Transformers with and without PE (``penb.irie_q4`` tables).

``results(order, positions, lm, order_use, ceiling, ...)``: four panels, (a) order-task test token
accuracy per model with its CI and the order-blind ceiling, (b) the same per output step,
(c) language-model test perplexity with its CI, (d) the loss a language model adds on a window's
last token when the earlier inputs are shuffled (``penb.irie_q4.lm_order_use``).
``training(curves_order, curves_lm)``: the training curves of both studies.
Colours: orange = no PE, blue = with PE; solid = the deepest model, dashed = one layer.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

NO_PE, PE = "#e76f51", "#264653"


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
