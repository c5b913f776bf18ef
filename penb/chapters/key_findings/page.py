"""What the page ``notebooks/key_findings.py`` shows and glues (issue 67): the paper's
setting, each model's training settings, the verdicts' words, the exploratory gaps and
the long run's headline cell. The words around them stay in the notebook.

Imported by the notebook only (IPython and myst_nb are not on the device image).
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from penb import claims, presets, sizing
from penb.chapters import pages
from penb.chapters.key_findings import analysis, headline
from penb.names import model_name

STRIP = ("morita.fig2.", "morita.")      # a verdict's glue name: kf_verdict_<the rest>


def _vocab_range(v) -> str:
    """``(32, ..., 1024)`` as "32-1,024"."""
    return f"{v[0]:,}-{v[-1]:,}"


def overview() -> None:
    """Show the chapter's claims (graded and untested) and glue the paper's setting
    (``kf_paper_*``, ``kf_betas_*``)."""
    display(claims.overview([c.key for c in claims.of_chapter("key_findings")]
                            + list(analysis.UNTESTED)))
    fig2, gru = claims.get("morita.fig2.lstm"), claims.get("morita.fig2.gru")
    setting = claims.get("morita.settings").value
    paper = presets.resolve("key_findings", "paper")
    level = claims.get("morita.fig2.level.lstm")     # the 95% is a claim of its own
    pages.glue_all({
        "kf_paper_length": fig2.extra["length"],
        "kf_paper_threshold": f"{level.value:.0%}",
        "kf_paper_gru_vocab": _vocab_range(gru.extra["vocab"]),
        "kf_paper_lstm_vocab": _vocab_range(fig2.extra["vocab"]),
        "kf_paper_hidden": setting["hidden"],
        "kf_paper_batch": setting["batch"],
        "kf_paper_steps": f"{setting['steps']:,}",
        "kf_paper_seeds": setting["seeds"],
        "kf_paper_bootstrap": f"{paper.bootstrap:,}",
        "kf_paper_held_out": f"{paper.held_out:,}",
        "kf_paper_runs": len(analysis.run_configs(paper)),
        "kf_betas_text": str(setting["betas_paper_text"]),
        "kf_betas_code": str(setting["betas_official_code"])})


def settings(cfg) -> None:
    """Show each model's training settings (``per_core`` applied) and glue the preset's
    (``kf_preset``, ``kf_hidden``, ...)."""
    own = {c: analysis.settings(cfg, c) for c in cfg.cores}
    display(pd.DataFrame({model_name(c): s for c, s in own.items()}, dtype=object))
    pages.glue_all({
        "kf_preset": cfg.preset,
        "kf_hidden": ", ".join(sorted({str(s["hidden"]) for s in own.values()})),
        "kf_length": cfg.length,
        "kf_steps": ", ".join(sorted({f"{s['steps']:,}" for s in own.values()})),
        **pages.seeds("kf", cfg),
        "kf_quick_rule": sizing.QUICK_RULE})


def run_counts(frame: pd.DataFrame) -> None:
    """Glue the runs' counts and training minutes (``kf_runs``, ``kf_diverged``,
    ``kf_run_minutes``) and the mean seconds of one run (``kf_run_seconds``)."""
    pages.run_counts("kf", frame)
    pages.glue_all({"kf_run_seconds": float(frame["wall_s"].mean())})


def verdicts(grades: list, cfg, **extra) -> list:
    """Show and glue the verdicts (``kf_verdict_*``), each model's graded vocabulary
    (``kf_<model>_v``) and the paper's level (``kf_threshold``); returns ``grades``."""
    pages.verdicts(grades, cfg, "kf_verdict_", STRIP, **extra)
    level = claims.get("morita.fig2.level.gru").rule.params["level"]
    pages.glue_all({f"kf_{m}_v": max(cfg[f"{m}_vocab"]) if m in cfg.cores else "none"
                    for m in ("gru", "lstm", "s4d")} | {"kf_threshold": f"{level:.0%}"})
    return grades


def gaps(frame: pd.DataFrame, cfg, **extra) -> None:
    """Show the paired gap at every vocabulary of every model (``analysis.gaps``),
    with the provenance under it."""
    every_v = analysis.gaps(frame, n_resamples=cfg.bootstrap)
    pages.table(every_v.assign(model=every_v["model"].map(model_name)).round(4)
                .set_index(["model", "vocab"]), cfg, bootstrap=cfg.bootstrap, **extra)


def long_run() -> None:
    """Show the V 256 cell of the long run's archives (``headline``): the figure and
    each archive's verdicts, or a line saying there is none yet."""
    dirs = headline.folders()
    if not dirs:
        print("No long-run archive yet (book/archived/key_findings-deep_v2, -deep_v3).")
        return
    fig = headline.figure(dirs)
    display(fig)
    plt.close(fig)
    display(headline.verdicts(dirs).set_index(["archive", "claim"]))
