"""The grades of the appendix chapters A-D, through the claims registry (penb.claims).

Each chapter's ``grade_*`` computes, for every claim of ``claims.of_chapter(chapter)``,
the evidence its registered rule reads and calls ``claims.grade`` (or
``claims.not_tested`` when the running settings cannot test it, with the reason). The
verdict, our number and the reason come from the registry's rule; nothing here writes a
verdict.

Evidence is per seed: a seed's value is its run's ``token_accuracy`` (for a distance claim,
minus its ``mean_distance`` divided by L); only seeds valid in every run a comparison needs
are paired; diverged runs are counted under ``diverged`` (the rules then call the
comparison undecided). Every claim reads one panel's runs (Fig. 8 one model, Fig. 12 one
task): seeds of different panels are never stacked as units.

* ``better_evidence``, ``best_other``, ``lead_evidence``, ``trend_evidence``: evidence;
* ``grade_a``, ``grade_b``, ``grade_c``, ``grade_d``: one list of ``Grade`` per chapter.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from penb import claims
from penb.chapters.appendix.common import LABELS, with_half
from penb.claims import training

NOT_HERE = "not at this preset: "


def cell(frame: pd.DataFrame, panel: str, vocab: Optional[int] = None) -> pd.DataFrame:
    """The runs of ``panel`` at ``vocab`` (None: the panel's largest vocabulary)."""
    g = frame[frame["panel"] == panel]
    vocab = int(g["vocab"].max()) if vocab is None else vocab
    return g[g["vocab"] == vocab]


def values(runs: pd.DataFrame, variant: str, metric: str = "token_accuracy") -> dict[int, float]:
    """{seed: ``metric``} of the valid runs of ``variant`` among ``runs``; metric
    "closeness" is minus the run's mean distance divided by its L (higher is better)."""
    g = runs[(runs["variant"] == variant) & ~runs["diverged"]]
    if metric == "closeness":
        return {int(s): -float(d) / float(n) for s, d, n in
                zip(g["seed"], g["mean_distance"], g["length"])}
    return {int(s): float(v) for s, v in zip(g["seed"], g[metric])}


def diverged(runs: pd.DataFrame, variants: Sequence[str], where: str = "") -> dict:
    """{label: number of diverged runs} of each of ``variants`` among ``runs``."""
    tag = f" ({where})" if where else ""
    return {f"{LABELS[v]}{tag}": int(runs[runs["variant"] == v]["diverged"].sum())
            for v in variants}


def best_other(runs: pd.DataFrame, others: Sequence[str]) -> dict[int, float]:
    """{seed: the highest accuracy among ``others``} over the seeds valid in all of them
    (the better variant is chosen per seed)."""
    per = [values(runs, v) for v in others]
    seeds = set.intersection(*(set(p) for p in per))
    return {s: max(p[s] for p in per) for s in seeds}


def _pair(a: dict, b: dict, *more: dict) -> list[int]:
    return sorted(set(a).intersection(b, *more))


def better_evidence(runs: pd.DataFrame, a: str, b: str, baseline: Optional[float],
                    b_values: Optional[dict] = None, b_name: str = "",
                    metric: str = "token_accuracy") -> dict:
    """Evidence of rule "better": ``a`` against ``b`` (or against ``b_values``, e.g. the
    best of several, named ``b_name``) per seed of ``metric``, seeds valid in both."""
    va = values(runs, a, metric)
    vb = values(runs, b, metric) if b_values is None else b_values
    seeds = _pair(va, vb)
    return {"a": [va[s] for s in seeds], "b": [vb[s] for s in seeds], "seeds": seeds,
            "baseline": baseline, "diverged": diverged(runs, [a] + ([b] if b else [])),
            "a_name": LABELS[a], "b_name": b_name or LABELS[b]}


def lead_evidence(runs: pd.DataFrame, lead: str,
                  others: Sequence[str]) -> dict[int, float]:
    """{seed: accuracy of ``lead`` minus the best of ``others`` in that seed}."""
    va, best = values(runs, lead), best_other(runs, others)
    return {s: va[s] - best[s] for s in _pair(va, best)}


def trend_evidence(frame: pd.DataFrame, panel: str, a: str = "sinusoidal",
                   b: str = "vanilla") -> dict:
    """Evidence of rule "trend": x = the panel's vocabularies, gaps = per seed, ``a``
    minus ``b`` at each of them (seeds valid in every run), diverged = the panel's
    diverged runs of both variants."""
    g = frame[frame["panel"] == panel]
    xs = sorted(int(v) for v in g["vocab"].unique())
    per = {v: (values(cell(g, panel, v), a), values(cell(g, panel, v), b)) for v in xs}
    seeds = sorted(set.intersection(*(set(pa) & set(pb) for pa, pb in per.values())))
    gaps = [[per[v][0][s] - per[v][1][s] for v in xs] for s in seeds]
    n = int(g[g["variant"].isin([a, b])]["diverged"].sum())
    return {"x": xs, "gaps": gaps, "seeds": seeds, "diverged": n, "x_name": "V", "a_name": a, "b_name": b,
            # protocol 5 reads both models at every vocabulary (penb.claims.doubling)
            "a_by_x": [[per[v][0][s] for v in xs] for s in seeds],
            "b_by_x": [[per[v][1][s] for v in xs] for s in seeds]}


def state(*cells: tuple[pd.DataFrame, Sequence[str], str]) -> dict:
    """The training state of the models a comparison reads: for each (runs, variants, cell name), the
    ``variants`` among ``runs`` (:func:`penb.claims.training.state`), joined over the cells."""
    return training.combine(training.state(runs, "variant", list(variants), LABELS, cell=name)
                            for runs, variants, name in cells)


def _check_all(chapter: str, grades: list) -> list:
    """Every claim of ``chapter`` graded (or recorded by ``claims.not_tested``) once."""
    want = [c.key for c in claims.of_chapter(chapter)]
    got = [g.claim for g in grades]
    if sorted(got) != sorted(want):
        raise RuntimeError(f"{chapter}: graded {got}, the registry lists {want}")
    return grades


# --- appendix A ----------------------------------------------------------------------

@with_half
def grade_a(frame: pd.DataFrame, cfg, panels, skipped) -> list:
    """Fig. 7 (and its trend), Fig. 8 (sorting against reversal), Fig. 10.

    ``skipped(section)`` gives the reason a section is not run at ``cfg``."""
    names = {p.name: p for p in panels}
    out = []
    if "add" in names:
        V = max(names["add"].vocabs)
        ev = better_evidence(cell(frame, "add"), "sinusoidal", "vanilla", 1 / V)
        t = state((cell(frame, "add"), ("sinusoidal", "vanilla"), ""))
        out.append(claims.grade("morita.fig7", ev, cfg, training=t, steps=cfg.add_steps))
        if len(names["add"].vocabs) < 3:
            out.append(claims.not_tested(
                "morita.fig7.trend", NOT_HERE + "the trend needs three vocabularies and this "
                "preset trains only the largest (the book's time budget); gpu/paper carry it", cfg))
        else:
            add = frame[frame["panel"] == "add"]
            t = state(*((add[add["vocab"] == v], ("sinusoidal", "vanilla"), f"V {v}")
                        for v in sorted(set(add["vocab"]))))
            out.append(claims.grade("morita.fig7.trend", trend_evidence(frame, "add"), cfg,
                                    training=t, steps=cfg.add_steps))
    else:
        out += [claims.not_tested(k, NOT_HERE + skipped("add"), cfg)
                for k in ("morita.fig7", "morita.fig7.trend")]
    out += _grade_fig8(frame, cfg, names, skipped)
    if "predecessor" in names:
        p = names["predecessor"]
        ev = better_evidence(cell(frame, p.name), "sinusoidal", "vanilla",
                             1 / (p.length - 1))
        t = state((cell(frame, p.name), ("sinusoidal", "vanilla"), ""))
        out.append(claims.grade("morita.fig10", ev, cfg, training=t, steps=cfg.pred_steps))
    else:
        out.append(claims.not_tested("morita.fig10", NOT_HERE + skipped("predecessor"),
                                     cfg))
    return _check_all("appendix_a", out)


def _grade_fig8(frame, cfg, names, skipped) -> list:
    """Per model: the sorting gain of PE per seed, with the reversal gain of the same
    model, vocabulary and seed as the reference; and the distance panel (PE closer to
    the sorted target than vanilla)."""
    out = []
    for core in ("gru", "lstm"):
        keys = (f"morita.fig8.{core}", f"morita.fig8.distance.{core}")
        if f"sort-{core}" not in names:
            why = skipped("sort") if "sort" not in cfg.sections else skipped(f"sort-{core}")
            out += [claims.not_tested(k, NOT_HERE + why, cfg) for k in keys]
            continue
        sort = cell(frame, f"sort-{core}")
        V = int(sort["vocab"].iloc[0])
        rev = cell(frame, f"reverse-{core}", V)
        ev = better_evidence(sort, "sinusoidal", "vanilla", 1 / V)
        with_reference(ev, lead_evidence(rev, "sinusoidal", ["vanilla"]), best_other(rev, ["vanilla"]))
        ev["diverged"].update(diverged(rev, ["vanilla", "sinusoidal"], "reversal"))
        ev["a_name"] = f"PE {core.upper()} in sorting"
        pair = ("sinusoidal", "vanilla")
        t = state((sort, pair, "sorting"), (rev, pair, "reversal"))
        out.append(claims.grade(keys[0], ev, cfg, training=t, steps=cfg.sort_steps, vocab=V))
        dist = better_evidence(sort, "sinusoidal", "vanilla", None, metric="closeness")
        dist["a_name"] = f"PE {core.upper()} (minus distance / L)"
        t = state((sort, pair, ""))
        out.append(claims.grade(keys[1], dist, cfg, training=t, steps=cfg.sort_steps, vocab=V))
    return out


# --- appendix B ----------------------------------------------------------------------

@with_half
def grade_b(frame: pd.DataFrame, cfg) -> list:
    """Fig. 11: PE against vanilla at variable length."""
    runs = cell(frame, "variable")
    ev = better_evidence(runs, "sinusoidal", "vanilla", 1 / int(runs["vocab"].iloc[0]))
    t = state((runs, ("sinusoidal", "vanilla"), ""))
    return _check_all("appendix_b", [claims.grade("morita.fig11", ev, cfg, training=t)])


# --- appendix C ----------------------------------------------------------------------

@with_half
def grade_c(frame: pd.DataFrame, cfg) -> list:
    """Fig. 12, per task: double vanilla minus vanilla ("no gain", gated on vanilla
    above chance), and PE against double vanilla (the comparison that makes it a
    control)."""
    out = []
    for task in ("reverse", "sort"):
        keys = (f"morita.fig12.no_gain.{task}", f"morita.fig12.pe_ahead.{task}")
        pairs = (("double", "vanilla"), ("sinusoidal", "double"))
        for key, (a, b) in zip(keys, pairs):
            lack = [v for v in (a, b) if v not in cfg.variants]
            if task not in cfg.tasks or lack:
                why = (f"the task is not among tasks={cfg.tasks}" if task not in cfg.tasks
                       else f"it needs {' and '.join(lack)} (variants={cfg.variants})")
                out.append(claims.not_tested(key, NOT_HERE + why, cfg))
                continue
            runs = cell(frame, task)
            ev = better_evidence(runs, a, b, 1 / int(runs["vocab"].iloc[0]))
            out.append(claims.grade(key, ev, cfg, training=state((runs, (a, b), ""))))
    return _check_all("appendix_c", out)


# --- appendix D ----------------------------------------------------------------------

D_CLAIMS = {"morita.fig13.random": ("fixed", ("random", "vanilla")),
            "morita.fig13.learnable": ("fixed", ("learnable", "vanilla")),
            "morita.fig13.sinusoidal_best": ("fixed", ("sinusoidal", "random",
                                                       "learnable")),
            "morita.fig14": ("fixed and variable", ("sinusoidal", "random",
                                                     "learnable"))}


def _missing_d(cfg, key: str) -> str:
    """What claim ``key`` of appendix D needs that ``cfg`` does not run ("": none)."""
    settings, need = D_CLAIMS[key]
    lack = [f"the {s}-length setting" for s in settings.split(" and ")
            if s not in cfg.settings]
    lack += [f"the {v} variant" for v in need if v not in cfg.variants]
    return (f"it needs {' and '.join(lack)} (settings={cfg.settings}, "
            f"variants={cfg.variants})") if lack else ""


@with_half
def grade_d(frame: pd.DataFrame, cfg) -> list:
    """Fig. 13 (fixed length): random and learnable against vanilla, sinusoidal against
    the better of the two; Fig. 14: sinusoidal's lead over the better of the two
    alternatives at variable length, against the same lead at fixed length."""
    out = []
    for key in D_CLAIMS:
        why = _missing_d(cfg, key)
        if why:
            out.append(claims.not_tested(key, NOT_HERE + why, cfg))
            continue
        fixed = cell(frame, "fixed")
        base = 1 / cfg.vocab
        if key in ("morita.fig13.random", "morita.fig13.learnable"):
            ev = better_evidence(fixed, D_CLAIMS[key][1][0], "vanilla", base)
        elif key == "morita.fig13.sinusoidal_best":
            ev = better_evidence(fixed, "sinusoidal", "", base,
                                 best_other(fixed, ["random", "learnable"]),
                                 "the better of random and learnable PE (per seed)")
            ev["diverged"] = diverged(fixed, ["sinusoidal", "random", "learnable"])
        else:
            ev = _fig14_evidence(frame, base)
        if key != "morita.fig13.random" and key != "morita.fig13.learnable":
            ev["a_name"] = "sinusoidal PE"
        if key == "morita.fig14":
            every = ("sinusoidal", "random", "learnable")
            t = state((cell(frame, "variable"), every, "variable"), (fixed, every, "fixed"))
        else:
            t = state((fixed, [v for v in D_CLAIMS[key][1] if v in cfg.variants], ""))
        out.append(claims.grade(key, ev, cfg, training=t))
    return _check_all("appendix_d", out)


def with_reference(ev: dict, ref: dict, ref_b: dict) -> dict:
    """``ev`` (rule "gain_vs_reference") kept to the seeds that ``ref`` ({seed: reference gain}) also has, in
    its own seed order, with ``ref_gain`` paired to them and ``ref_b`` ({seed: the accuracy the reference gain
    is measured from}, for protocol 3's gains over the room left); changed in place and returned."""
    keep = [i for i, s in enumerate(ev["seeds"]) if s in ref]
    ev.update(a=[ev["a"][i] for i in keep], b=[ev["b"][i] for i in keep],
              seeds=[ev["seeds"][i] for i in keep])
    ev["ref_gain"] = [ref[s] for s in ev["seeds"]]
    ev["ref_b"] = [ref_b[s] for s in ev["seeds"]]
    return ev


def _fig14_evidence(frame: pd.DataFrame, base: float) -> dict:
    others = ["random", "learnable"]            # "the two alternatives" (App. D; issue 35)
    var, fixed = cell(frame, "variable"), cell(frame, "fixed")
    ev = better_evidence(var, "sinusoidal", "", base, best_other(var, others),
                         "the better of random and learnable PE (per seed)")
    with_reference(ev, lead_evidence(fixed, "sinusoidal", others), best_other(fixed, others))
    ev["diverged"] = {**diverged(var, ["sinusoidal"] + others, "variable"),
                      **diverged(fixed, ["sinusoidal"] + others, "fixed")}
    return ev
