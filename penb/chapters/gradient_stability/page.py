"""What the page ``notebooks/gradient_stability.py`` shows and glues (issue 67): the
paper's setting, the preset's, Fig. 5 and the graded measure, the readings checked on a
trained model, the verdicts' words and the run tables. The words stay in the notebook.

Imported by the notebook only (IPython and myst_nb are not on the device image).
"""
from __future__ import annotations

import pandas as pd
from IPython.display import display

from penb import claims
from penb.chapters import frequency, pages, rnn_common
from penb.chapters.gradient_stability import analysis, plots
from penb.names import model_name

STRIP = ("morita.fig5.", "morita.sec4_3.")   # a verdict's glue name: gs_v_<the rest>


def overview() -> None:
    """Show the chapter's claims (the S4D one, which has no rule, too) and glue the
    paper's setting (``gs_paper_*``)."""
    display(claims.overview([*(c.key for c in claims.of_chapter("gradient_stability")),
                             analysis.S4D_CLAIM]))
    fig5 = claims.get(analysis.CLAIMS["gru"])
    pages.glue_all({
        "gs_paper_every": f"{fig5.extra['checkpoint_every']:,}",
        "gs_paper_pairs": f"{fig5.extra['pairs']:,}",
        "gs_paper_seeds": claims.get("morita.settings").value["seeds"],
        "gs_paper_s4d_steps": f"{claims.get(analysis.S4D_CLAIM).value:,}"})


def settings(cfg) -> dict:
    """Glue the preset, its seeds and models (``gs_preset``, ``gs_seed_*``,
    ``gs_models``); returns the provenance items every table and figure adds."""
    pages.glue_all({"gs_preset": cfg.preset,
                    **pages.seeds("gs", cfg),
                    "gs_models": ", ".join(map(model_name, cfg.cores))})
    return dict(pairs=cfg.pairs, method=cfg.method, **rnn_common.provenance_extra(cfg))


def target_steps(cfg) -> None:
    """Print each model's target step t (from 1)."""
    print("target step t per model:",
          {model_name(c): analysis.target_position(cfg, c) + 1 for c in cfg.cores})


def fig5(cfg, curves: pd.DataFrame, **extra) -> None:
    """Fig. 5 at the preset (``plots.over_training`` of the seed-level curves:
    ``curves`` holds a row per run x checkpoint x method x target x disturbants, the
    summary one per core x variant x step x target x disturbants), glued as
    ``gs_fig5``, with the pairs and checkpoints per run (``gs_pairs``,
    ``gs_checkpoints``)."""
    summary = analysis.summarize(curves, cfg.method, n_resamples=cfg.bootstrap)
    pages.glue_all({"gs_pairs": cfg.pairs,
                    "gs_checkpoints": int(curves["step"].nunique())})
    fig = plots.over_training(summary, curves, method=cfg.method, models=cfg.cores)
    pages.figure("gs_fig5", fig, cfg, **extra)


def last_points(cfg, curves: pd.DataFrame, **extra) -> tuple:
    """Each run's score at its last checkpoint (``analysis.seed_scores``: a row per
    core x variant x seed) and their seed-level summary (a row per core x variant);
    the graded models' scores drawn seed by seed, glued as ``gs_fig_last``. Returns
    (scores, summary)."""
    scores = analysis.seed_scores(curves, cfg.method)
    summary = analysis.score_summary(scores, n_resamples=cfg.bootstrap)
    graded = [c for c in cfg.cores if c in analysis.CLAIMS]
    fig = plots.last_points(scores[scores["core"].isin(graded)], summary, models=graded,
                            ylabel=f"similarity ({cfg.method}),\nRARE disturbants")
    pages.figure("gs_fig_last", fig, cfg, **extra)
    return scores, summary


def readings_check(frame: pd.DataFrame, cfg, **extra) -> None:
    """The readings on the first valid run's Jacobians (``analysis.readings_check``):
    J against J, 2J and -J, then real pairs, with the provenance; glues what the
    printed Eq. 3-4 gives J against itself (``gs_printed_one``)."""
    valid = frame[~frame["diverged"]]
    if not len(valid):
        pages.glue_all({"gs_printed_one": "(no valid run to check)"})
        return
    first = valid.iloc[0]
    identity, pair_rows = analysis.readings_check(first.path, cfg)
    print(f"run: {first.model} / {first.variant}, seed {first.seed}, last checkpoint")
    identity = identity.set_index("method")
    pages.table([identity, pair_rows.round(6)], cfg, **extra)
    printed_one = float(identity.loc["printed", "J_vs_J"])
    pages.glue_all({"gs_printed_one": f"{printed_one:.3g}"})


def verdicts(grades: list, cfg, **extra) -> list:
    """Show and glue the verdicts (``gs_v_*``: gru, lstm, pe_stays_gru, ..., s4d,
    s4d_marginal, s4d_stable) and the rule's seeds and agreement (``gs_min_seeds``,
    ``gs_agree``); returns ``grades``."""
    pages.verdicts(grades, cfg, "gs_v_", STRIP, **extra)
    rule = claims.get(analysis.CLAIMS["gru"]).rule
    pages.glue_all({"gs_min_seeds": rule.params["min_seeds"],
                    "gs_agree": f"{rule.params['min_agree']:.0%}"})
    return grades


def run_tables(frame: pd.DataFrame, scores: pd.DataFrame, cfg, **extra) -> None:
    """Every run (``frequency.analysis.run_table``) and each valid run's score at its
    last checkpoint (one row per model, variant and seed), with the provenance."""
    named = (scores.assign(core=scores["core"].map(model_name)).round(4)
             .set_index(["core", "variant", "seed"]))
    pages.table([frequency.analysis.run_table(frame), named], cfg, **extra)
