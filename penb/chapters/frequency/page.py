"""What the page ``notebooks/frequency.py`` shows and glues (issue 67): the paper's
setting, the preset's, the verdicts' words, the exploratory FREQUENT-target harm and the
run tables. The words around them stay in the notebook.

Imported by the notebook only (IPython and myst_nb are not on the device image).
"""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
from IPython.display import display

from penb import claims, presets
from penb.chapters import pages
from penb.chapters.frequency import analysis, plots
from penb.names import RNN_CORES, model_name

STRIP = ("morita.fig3.",)      # a verdict's glue name: fq_v_<the rest>


def overview() -> None:
    """Show the chapter's claims and glue the paper's setting (``fq_paper_*``)."""
    display(claims.overview([c.key for c in claims.of_chapter("frequency")]))
    harm = claims.get(analysis.HARM["gru"])
    paper = presets.resolve("frequency", "paper")
    rarity = Fraction(harm.extra["rare_probability"]).limit_denominator(1000)
    pages.glue_all({
        "fq_paper_rarity": str(rarity),
        "fq_paper_ratio": int((1 - rarity) / rarity),
        **{f"fq_paper_vocab_{c}": f"{v:,}" for c, v in harm.extra["vocab"].items()},
        "fq_paper_length": harm.extra["length"],
        "fq_paper_per_cell": harm.extra["test_sequences_per_condition_position"],
        "fq_paper_tests": f"{4 * paper.length * paper.per_cell:,}",
        "fq_paper_seeds": claims.get("morita.settings").value["seeds"]})


def settings(cfg) -> None:
    """Glue the preset, its seeds and vocabularies (``fq_seed_*``, ``fq_vocab_*``)."""
    pages.glue_all({
        "fq_preset": cfg.preset,
        **pages.seeds("fq", cfg),
        **{f"fq_vocab_{core}": f"{cfg[f'{core}_vocab']:,}" if core in cfg.cores
           else "not run" for core in RNN_CORES}})


def run_counts(frame: pd.DataFrame, cfg) -> None:
    """Glue the runs' counts and training time (``fq_runs``, ...) and the test sequences
    of one run (``fq_tests``)."""
    pages.run_counts("fq", frame)
    pages.glue_all({"fq_tests": 4 * cfg.length * cfg.per_cell})


def verdicts(grades: list, cfg, **extra) -> list:
    """Show and glue the verdicts (``fq_v_*``) and the robustness rule's parameters
    (``fq_margin``, ``fq_min_seeds``, ``fq_agree``); returns ``grades``."""
    pages.verdicts(grades, cfg, "fq_v_", STRIP, **extra)
    rule = claims.get(analysis.ROBUST["gru"]).rule
    pages.glue_all({"fq_margin": rule.params["baseline_margin"],
                    "fq_min_seeds": rule.params["min_seeds"],
                    "fq_agree": f"{rule.params['min_agree']:.0%}"})
    return grades


def harm_frequent(cells: pd.DataFrame, cfg, **extra) -> None:
    """The exploratory harm of RARE disturbants on FREQUENT targets: its table with the
    provenance under it, and its figure glued as ``fq_fig_harm_frequent``."""
    sh = analysis.seed_harm(cells, target="frequent")
    summary = analysis.harm_summary(sh, n_resamples=cfg.bootstrap)
    harm = analysis.harm_table(summary, sh, n_resamples=cfg.bootstrap)
    pages.table(harm, cfg, bootstrap=cfg.bootstrap, **extra)
    fig = plots.harm_points(sh, summary, models=cfg.cores)
    fig.axes[0].set_ylabel("harm, FREQUENT targets only\n(accuracy, FREQUENT - RARE)")
    pages.figure("fq_fig_harm_frequent", fig, cfg, **extra)


def run_tables(frame: pd.DataFrame, sh: pd.DataFrame, cfg, **extra) -> None:
    """Every run (``analysis.run_table``) and each valid run's harm (``sh``, one row per
    model, variant and seed), with the provenance under them."""
    harm = (sh.assign(model=sh["model"].map(model_name)).round(4)
            .set_index(["model", "variant", "seed"]).drop(columns="target"))
    pages.table([analysis.run_table(frame), harm], cfg, **extra)
