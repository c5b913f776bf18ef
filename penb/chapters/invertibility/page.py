"""What the page ``notebooks/invertibility.py`` shows and glues (issue 67): the blog's
numbers, the study's counts, the floors, the claims' measures seed by seed, the
verdicts, the published loss file and the sentinel side study. The words stay in the
notebook.

Imported by the notebook only (IPython and myst_nb are not on the device image).

``df`` is the pooled mean frame ``[steps, encodings]`` (``analysis.pooled_mean``: index
``step``, one column per encoding); ``fl`` the exact floors ``{"affine": x, "normal":
y}`` (``analysis.floors``); ``studies`` one ``analysis.Study`` per seed, in
``cfg.seeds``'s order.
"""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from penb import claims, report
from penb.chapters import pages
from penb.chapters.invertibility import analysis, checks, plots, sentinel
from penb.chapters.invertibility.curves import settle_step

RANK_STEPS = (100, 400, 1200, 2000, 4000, 12000)        # then the run's last step
CHECKPOINTS = (0, 100, 400, 1200, 2000, 4000, 12000, 19999)  # without the anchor table
SHOWN = ["cross", "last_beaten", "flat:normal", "flat:normal_learned", "plateau:normal",
         "plateau:normal_learned", "plateau:sincos", "reach:linear_normal",
         "reach:linear_uniform", "final/direct:normal", "final/direct:sincos"]
BOTH = ["cross", "last_beaten", "flat:normal", "flat:normal_learned", "plateau:normal",
        "plateau:normal_learned", "reach:linear_normal", "reach:linear_uniform",
        "reach:linear_normal_learned", "reach:linear_uniform_learned"]


def overview() -> None:
    """Show the chapter's claims; glue the blog's steps (``inv_blog_cross``,
    ``inv_blog_over``, ``inv_blog_plateau``)."""
    display(claims.overview(c.key for c in claims.of_chapter(checks.CHAPTER)))
    plateau = claims.get("hansen.normal_plateau").value
    pages.glue_all({
        "inv_blog_cross": f"{claims.get('hansen.normal_best').value:,}",
        "inv_blog_over": f"{claims.get('hansen.sincos_1200').value:,}",
        "inv_blog_plateau": f"{plateau['normal']} and {plateau['normal_learned']}"})


show = pages.show  # stamp, show in the captioned cell, provenance under it


def run_counts(studies: Sequence[analysis.Study], cfg) -> pd.DataFrame:
    """Glue the problems of a seed, their mean training time, the steps, the seeds, the
    initialisations pooled per encoding and the diverged problems (``inv_*``); returns
    ``analysis.run_table``."""
    runs = analysis.run_table(studies)
    pages.glue_all({"inv_wall": float(runs.wall_s.mean()),
                    "inv_problems": len(studies[0].encodings) * cfg.inits,
                    "inv_steps": f"{cfg.iterations:,}",
                    "inv_seed_list": ", ".join(map(str, cfg.seeds)),
                    "inv_pooled": len(cfg.seeds) * cfg.inits,
                    "inv_diverged": int(runs.diverged.sum())})
    return runs


def rankings(df: pd.DataFrame, cfg) -> None:
    """Each encoding's rank (1 = lowest mean loss) at :data:`RANK_STEPS` and at the
    run's last step."""
    pages.table(checks.rankings(df, [*RANK_STEPS, int(df.index[-1])]), cfg)


def floors(df: pd.DataFrame, fl: dict, cfg) -> None:
    """The exact floors beside the registry's values and our final means, and the best
    sincos fit; glues ``floor_*``, ``sincos_final``, ``sincos_fit``, ``sincos_fit_w``
    and ``adam_reach`` (the most Adam moves one weight over the run)."""
    fit = analysis.sincos_best_fit(cfg.length, cfg.dim)
    final = df.iloc[-1]
    affine, normal = final[list(checks.AFFINE)], final[list(checks.NORMAL)]
    table = pd.DataFrame({
        "exact floor (scipy)": [fl["affine"], fl["normal"], None],
        "registry's value": [claims.get("hansen.floor_affine").value,
                             claims.get("hansen.floor_normal").value, None],
        "our final mean (min)": [affine.min(), normal.min(), final["sincos"]],
        "our final mean (max)": [affine.max(), normal.max(), final["sincos"]],
    }, index=["affine in t (6 encodings)", "normal, normal_learned",
              "sincos (no two-parameter floor)"])
    pages.glue_all({"floor_affine": fl["affine"], "floor_normal": fl["normal"],
                    "sincos_final": float(final["sincos"]), "sincos_fit": fit["mse"],
                    "sincos_fit_w": fit["max_abs_weight"],
                    "adam_reach": cfg.lr * cfg.iterations})
    pages.table(table.style.format("{:.6e}", na_rep=""), cfg)


def sanity(df: pd.DataFrame, fl: dict, cfg) -> None:
    """The book's sanity checks (``checks.sanity``, never on the scorecard): their table
    and provenance; glues each verdict as ``inv_s_*``."""
    grades = checks.sanity(checks.measures(df, fl))
    pages.verdicts(grades, cfg, "inv_s_")


def measures(studies: Sequence[analysis.Study], df: pd.DataFrame, fl: dict,
             cfg) -> tuple[pd.DataFrame, pd.Series]:
    """Show the claims' measures (:data:`SHOWN`) of each seed's curve and of the pooled
    one; returns ``(per_seed, pooled)``: ``checks.measure_table`` of the seeds (one row
    each) and the pooled row."""
    per_seed = checks.measure_table({s.settings["seed"]: s.mean() for s in studies}, fl)
    pooled = checks.measure_table({"pooled": df}, fl).iloc[0]
    display(pd.concat([per_seed, pooled.to_frame().T])[SHOWN].rename_axis("seed")
            .style.format("{:,.0f}", subset=SHOWN[:-2])
            .format("{:.4f}", subset=SHOWN[-2:]))
    print(report.provenance(cfg))
    return per_seed, pooled


def claim_measures(per_seed: pd.DataFrame, pooled: pd.Series):
    """``plots.claim_measures`` with the blog's values of its step claims."""
    plateau = claims.get("hansen.normal_plateau").value
    blog = {"cross": claims.get("hansen.normal_best").value,
            "last_beaten": claims.get("hansen.sincos_1200").value,
            "plateau:normal": plateau["normal"],
            "plateau:normal_learned": plateau["normal_learned"]}
    return plots.claim_measures(per_seed, pooled, blog)


def crossing(df: pd.DataFrame, fl: dict):
    """``plots.crossing_view`` of sincos against normal, with the blog's step."""
    step = checks.crossing_step(df, "sincos", "normal")
    return plots.crossing_view(df, "sincos", "normal", step,
                               claims.get("hansen.normal_best").value, fl)


def verdicts(grades: list, cfg) -> None:
    """Show the verdict table with the provenance; glue every verdict (``inv_v_*``) and
    the preset (``inv_preset``)."""
    pages.verdicts(grades, cfg, "inv_v_")
    pages.glue_all({"inv_preset": cfg.preset})


def published(df: pd.DataFrame, cfg) -> Optional[pd.DataFrame]:
    """direct1 at step 0 against the published file and a prediction of 1/2, then our
    pooled mean over the published one (x 200) at the post's checkpoints and both means
    at the last one this run reached. Returns the corrected file, None without it."""
    published = analysis.load_published()
    anchors = analysis.load_anchor_table()
    if published is None:
        print("The published loss file is not available here "
              "(shared/anchors/pos-enc-invert); comparison skipped.")
        return None
    raw = analysis.load_published(correct=False)
    half = analysis.constant_prediction_loss(analysis.PUBLISHED_LENGTH)
    print(f"direct1 at step 0: file {raw.at[0, 'direct1']:.4e}, "
          f"x 200 = {published.at[0, 'direct1']:.4e}, ours {df.at[0, 'direct1']:.4e}, "
          f"prediction 1/2 everywhere: {half:.4e}")
    steps = list(anchors.index) if anchors is not None else list(CHECKPOINTS)
    table = checks.compare(df, published, steps)
    display(table["ours / published"].unstack("encoding").style.format("{:.3f}"))
    end = max(s for s in steps if s <= int(df.index[-1]))
    display(table.xs(end, level="step").style.format(
        {"ours": "{:.6e}", "published": "{:.6e}", "ours / published": "{:.5f}"}))
    print(report.provenance(cfg))
    return published


def published_overlay(df: pd.DataFrame, published: Optional[pd.DataFrame], fl: dict,
                      cfg) -> None:
    """``plots.published_overlay``, shown (:func:`show`), when the file is there."""
    if published is None:
        print("No published loss file: figure skipped.")
        return
    show(plots.published_overlay(df, published, fl), cfg)


def published_measures(df: pd.DataFrame, published: Optional[pd.DataFrame], fl: dict,
                       cfg) -> None:
    """The measures :data:`BOTH` read off the published file (x 200) and off ``df``."""
    if published is None or len(published) != len(df):
        print("No published loss file of this run's length: table skipped.")
        return
    both = checks.measure_table({"published x 200": published, "ours": df}, fl)
    pages.table(both[BOTH].style.format("{:,.0f}"), cfg)


def wrong_side(studies: Sequence[analysis.Study], cfg) -> None:
    """``sentinel.wrong_side``'s table; glues normal's counts as ``p0_start`` and
    ``p0_end``."""
    p0 = sentinel.wrong_side(studies, cfg)
    pages.glue_all({"p0_start": int(p0.at["normal", "at step 0"]),
                    "p0_end": int(p0.at["normal", "after the run"])})
    pages.table(p0, cfg)


def _step_or_loss(v) -> str:
    return "not reached" if pd.isna(v) else (f"{v:,.0f}" if v >= 1 else f"{v:.4e}")


def sentinel_study(studies: Sequence[analysis.Study], fl: dict,
                   cfg) -> dict[str, pd.DataFrame]:
    """The side study (``sentinel.side_study``) and its table; glues ``alt_sentinel``,
    ``settle_{main,alt}_<enc>`` and ``final_{main,alt}_<enc>``. Returns its frames."""
    frames = sentinel.side_study(studies, cfg)
    values = {"alt_sentinel": cfg.alt_sentinel}
    for frame, name in zip(frames.values(), ("main", "alt")):
        for k in sentinel.NORMAL:
            step = settle_step(frame[k], fl["normal"])
            values[f"settle_{name}_{k}"] = ("(not within this run)" if step is None
                                            else f"{step:,}")
            values[f"final_{name}_{k}"] = float(frame[k].iloc[-1])
    pages.glue_all(values)
    settle = sentinel.settle_table(frames, fl["normal"])
    pages.table(settle.style.format(_step_or_loss), cfg, side_study_seed=cfg.seeds[0])
    return frames


def sentinel_view(frames: dict[str, pd.DataFrame], fl: dict, cfg) -> None:
    """``plots.sentinel_view``, stamped with the finite sentinel and shown."""
    fig = plots.sentinel_view(frames, fl)
    report.stamp(fig, cfg, alt_sentinel=cfg.alt_sentinel)
    plt.show()
    print(report.provenance(cfg, alt_sentinel=cfg.alt_sentinel,
                            side_study_seed=cfg.seeds[0]))


def spread(studies: Sequence[analysis.Study], cfg) -> None:
    """Quantiles over the first seed's initialisations of each encoding's final loss."""
    pages.table(studies[0].final_spread().style.format("{:.4e}"), cfg,
                seed=cfg.seeds[0])
