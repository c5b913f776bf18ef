"""The evidence of every claim of the chapter "Frequency matters" (Fig. 3, Sec. 4.2-4.3), graded through
``penb.claims``.

Each ``*_evidence`` function returns what the claim's registered rule reads: one number per seed, seeds paired
(``a``, ``b``), the trivial baseline and the diverged runs of the compared variants. ``cells_`` is the test
grid's counts (:func:`penb.chapters.frequency.grid.cells`: model, variant, seed, target, disturbants, position,
correct, n); ``sh`` the per-seed harm over all targets (:func:`penb.chapters.frequency.harm.seed_harm`).
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from penb import claims
from penb.chapters import rnn_common
from penb.claims import training
from penb.claims.intervals import t_interval
from penb.chapters.frequency.grid import cells, majority_level, per_seed, quarter_cells, quarters
from penb.chapters.frequency import sec4_2
from penb.chapters.frequency.gates import (absent as _absent, learned as _learned,  # noqa: F401
                                          of as _of, vanilla_control as _vanilla_control)
from penb.chapters.frequency.harm import PE, VANILLA, paired, seed_harm
from penb.names import model_name

# The claims this chapter grades (penb.claims.morita), by kind and model.
MODELS = ("gru", "lstm", "s4d")
HARM = {core: f"morita.fig3.harm.{core}" for core in MODELS}
ROBUST = {core: f"morita.fig3.pe_robust.{core}" for core in MODELS}
DISTURBANTS = {core: f"morita.fig3.disturbants.{core}" for core in MODELS}
WHERE = {"lstm": ("morita.fig3.where.lstm", 0), "s4d": ("morita.fig3.where.s4d", 1)}   # quarter (0-based)
NEAR_PERFECT = {core: f"morita.fig3.pe_near_perfect.{core}" for core in ("gru", "lstm")}
S4D_T1 = "morita.sec4_3.s4d_t1"
EXCEPTION = "morita.fig3.gru_exception"                      # graded in frequency.sec4_2 (issue 28)


def diverged_counts(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    """{(model, variant): number of diverged runs} for every model x variant of ``frame``."""
    g = frame.groupby(["model", "variant"], sort=False)["diverged"].sum()
    return {k: int(v) for k, v in g.items()}


def harm_evidence(sh: pd.DataFrame, model: str, vocab: int, diverged: dict) -> dict:
    """``morita.fig3.harm.<model>``: per valid vanilla seed, the accuracy with FREQUENT (``a``) and with RARE
    (``b``) disturbants, over the target group of ``sh`` (``seed_harm``'s ``target``: the registry's
    ``extra["targets"]``, :func:`harm_of`); baseline chance 1/V."""
    v = _of(sh, model, VANILLA).sort_values("seed")
    group = str(v["target"].iloc[0]) if len(v) and "target" in v else "all"
    targets = "" if group == "all" else f", {group.upper()} targets"
    return dict(a=v["acc_frequent"].tolist(), b=v["acc_rare"].tolist(), baseline=1 / vocab,
                diverged={VANILLA: int(diverged.get((model, VANILLA), 0))},
                a_name=f"vanilla {model_name(model)}{targets}, FREQUENT disturbants", b_name="RARE disturbants",
                seeds=v["seed"].tolist())


def harm_of(key: str, sh: pd.DataFrame, cells_: pd.DataFrame) -> pd.DataFrame:
    """The per-seed harm that claim ``key`` reads: ``sh`` (all targets) unless the registry names a target group
    (``extra["targets"]``: the GRU's FREQUENT targets, issue 35), then :func:`~penb.chapters.frequency.harm.seed_harm`
    of that group."""
    group = claims.get(key).extra.get("targets", "all")
    return sh if group == "all" else seed_harm(cells_, target=group)


def robust_evidence(sh: pd.DataFrame, model: str, diverged: dict, cells_=None, vocab=None) -> dict:
    """``morita.fig3.pe_robust.<model>``: the vanilla harm (``a``) and the PE harm (``b``) per seed valid in
    both; baseline 0 (no vanilla harm: nothing for PE to reduce). With ``cells_`` and ``vocab``, a control too:
    the PE model must have learned the task at least as well as the vanilla one where nothing disturbs it
    (accuracy with FREQUENT disturbants above chance and at least the vanilla model's: the control's
    [value, chance, reference], :func:`penb.claims.margins.at_least`, within the rule's ``noninferiority``
    margin under protocol 3): a poor PE model shows little harm because it has little to lose, and decides
    nothing."""
    p = paired(sh, model)
    both = VANILLA in p and PE in p                          # else no seed is valid in both
    a, b = (p[VANILLA].tolist(), p[PE].tolist()) if both else ([], [])
    name = model_name(model)
    ev = dict(a=a, b=b, baseline=0.0, diverged={v: int(diverged.get((model, v), 0)) for v in (VANILLA, PE)},
              a_name=f"vanilla {name} harm", b_name=f"PE {name} harm", seeds=p["seed"].tolist() if both else [])
    if cells_ is not None and vocab is not None:
        ev["controls"] = {f"the PE {name}'s accuracy with FREQUENT disturbants (against the vanilla {name}'s)":
                          [_learned(cells_, model, PE), 1 / vocab, _learned(cells_, model, VANILLA)]}
    return ev


def disturbant_evidence(cells_: pd.DataFrame, model: str, diverged: dict, vocab: int) -> dict:
    """``morita.fig3.disturbants.<model>``: per vanilla seed, the disturbant effect (``a``: FREQUENT minus RARE
    disturbants, averaged over the two target groups) and the target effect (``b``: FREQUENT minus RARE
    targets, averaged over the two disturbant groups). No baseline on ``a``: an absent disturbant effect
    contradicts the claim and is graded; the control is that the vanilla model learned."""
    s = per_seed(_of(cells_, model, VANILLA), ["target", "disturbants"])
    w = s.pivot_table(index="seed", columns=["target", "disturbants"], values="accuracy").sort_index()
    a = ((w["frequent", "frequent"] - w["frequent", "rare"]) + (w["rare", "frequent"] - w["rare", "rare"])) / 2 \
        if len(w) else pd.Series(dtype=float)
    b = ((w["frequent", "frequent"] - w["rare", "frequent"]) + (w["frequent", "rare"] - w["rare", "rare"])) / 2 \
        if len(w) else pd.Series(dtype=float)
    name = model_name(model)
    return dict(a=a.tolist(), b=b.tolist(), baseline=None, diverged={VANILLA: int(diverged.get((model, VANILLA), 0))},
                controls=_vanilla_control(cells_, model, vocab), a_name=f"vanilla {name}'s disturbant effect",
                b_name="its target effect", seeds=list(w.index))


def where_evidence(cells_: pd.DataFrame, model: str, quarter: int, length: int, diverged: dict, vocab: int) -> dict:
    """``morita.fig3.where.<model>``. LSTM (``quarter`` 0): per vanilla seed, the harm of RARE disturbants in the
    first quarter (``a``) vs its mean over the other quarters (``b``). S4D (``quarter`` 1, "worst there"): per
    vanilla seed, with RARE disturbants, the lowest accuracy among the other quarters (``a``) vs the second
    quarter's (``b``). No baseline on ``a``; the control is that the vanilla model learned."""
    q = quarter_cells(_of(cells_, model, VANILLA), length)
    names = [f"{lo}-{hi}" if hi > lo else f"{lo}" for lo, hi in quarters(length)]
    s = per_seed(q, ["disturbants", "quarter"])
    w = s.pivot_table(index="seed", columns=["disturbants", "quarter"], values="accuracy").sort_index()
    here, rest = names[quarter], [n for i, n in enumerate(names) if i != quarter]
    name = model_name(model)
    if model == "lstm":
        h = w["frequent"] - w["rare"] if len(w) else pd.DataFrame(columns=names)
        a, b = h[here], h[rest].mean(axis=1)
        labels = (f"vanilla {name}'s harm at t = {here}", "at the other quarters")
    else:
        r = w["rare"] if len(w) else pd.DataFrame(columns=names)
        a, b = r[rest].min(axis=1), r[here]
        labels = (f"vanilla {name} (RARE disturbants), its worst other quarter", f"at t = {here}")
    return dict(a=a.tolist(), b=b.tolist(), baseline=None, controls=_vanilla_control(cells_, model, vocab),
                diverged={VANILLA: int(diverged.get((model, VANILLA), 0))}, a_name=labels[0], b_name=labels[1],
                seeds=list(w.index))


def level_check(values: pd.DataFrame, level: float, rule: str, levels: Optional[dict] = None) -> dict:
    """A level claim on per-condition seed values (``values``: one column per condition, one row per seed):
    each condition's mean over seeds and its Student-t interval against ``level``. ``rule`` "most": more than
    half of the conditions at or above (reproduced) or wholly below (not reproduced) the level; "all": every
    condition's mean above it (reproduced), or some interval wholly below it (not reproduced). ``levels``
    ({name: per-seed Series, in ``values``' row order}) are the per-seed levels protocol 4's doubling test
    reads (``levels`` and ``level_seeds`` of the evidence)."""
    rows = {c: claims.seed_interval(values[c].dropna().to_numpy(float)) for c in values.columns}
    above = [c for c, (m, lo, hi) in rows.items() if m >= level]
    below = [c for c, (m, lo, hi) in rows.items() if hi < level]
    k = len(rows)
    detail = (f"{len(above)}/{k} conditions with a seed mean at or above {level}; {len(below)}/{k} with the "
              f"interval wholly below it; lowest: " + ", ".join(
                  f"{c} {m:.3f} [{lo:.3f}, {hi:.3f}]" for c, (m, lo, hi) in sorted(rows.items(),
                                                                                  key=lambda x: x[1][0])[:3]))
    out = dict(detail=detail, levels={name: v.tolist() for name, v in (levels or {}).items()},
               level_seeds=[int(s) for s in values.index])
    if len(values) < 3:
        return dict(out, passed=False, inconclusive=f"{len(values)} seeds: the intervals need 3")
    if rule == "most":
        if len(above) > k / 2:
            return dict(out, passed=True)
        if len(below) > k / 2:
            return dict(out, passed=False, why=f"more than half of the conditions lie below {level}")
    else:
        if len(above) == k:
            return dict(out, passed=True)
        if below:
            return dict(out, passed=False, why=f"some condition lies wholly below {level}")
    return dict(out, passed=False, inconclusive=f"the intervals straddle {level}: more seeds would tell")


def near_perfect_evidence(cells_: pd.DataFrame, model: str, length: int, level: float) -> dict:
    """``morita.fig3.pe_near_perfect.<model>``: the PE model's per-seed accuracy in each of the 16 conditions
    (target x disturbants x quarter) against ``level`` (:func:`level_check`, rule "most")."""
    s = per_seed(quarter_cells(_of(cells_, model, PE), length), ["target", "disturbants", "quarter"])
    w = s.pivot_table(index="seed", columns=["target", "disturbants", "quarter"], values="accuracy")
    w.columns = [f"target {t}/{d} t {q}" for t, d, q in w.columns]
    name = f"the accuracy more than half of the PE {model_name(model)}'s conditions reach"
    return level_check(w, level, "most", {name: majority_level(w)})


def s4d_t1_evidence(cells_: pd.DataFrame, level: float) -> dict:
    """``morita.sec4_3.s4d_t1``: both S4Ds' per-seed accuracy at t = 1 in each target x disturbants condition
    against ``level`` (:func:`level_check`, rule "all")."""
    at = cells_[(cells_["model"] == "s4d") & (cells_["position"] == 1)]
    s = per_seed(at, ["target", "disturbants"])
    w = s.pivot_table(index="seed", columns=["variant", "target", "disturbants"], values="accuracy")
    lowest = {f"the {v} S4D's lowest condition at t = 1": w[v].min(axis=1) for v in dict.fromkeys(
        w.columns.get_level_values(0))}
    w.columns = [f"{v} target {t}/{d}" for v, t, d in w.columns]
    return level_check(w, level, "all", lowest)


def _claim_evidence(cfg, key: str, frame, sh, cells_, diverged) -> tuple[str, str, dict | None]:
    """(model, why not tested, evidence) of claim ``key``."""
    if key in sec4_2.KEYS:                                   # the rest of Sec. 4.2 (issue 28)
        return sec4_2.evidence(cfg, key, cells_, diverged)
    for table, variants in ((HARM, (VANILLA,)), (ROBUST, (VANILLA, PE)), (DISTURBANTS, (VANILLA,))):
        model = next((m for m, k in table.items() if k == key), None)
        if model is None:
            continue
        why = _absent(cfg, model, variants)
        if why:
            return model, why, None
        vocab = int(cfg[f"{model}_vocab"])
        if table is HARM:
            return model, "", harm_evidence(harm_of(key, sh, cells_), model, vocab, diverged)
        if table is ROBUST:
            return model, "", robust_evidence(sh, model, diverged, cells_, vocab)
        return model, "", disturbant_evidence(cells_, model, diverged, vocab)
    for model, (k, quarter) in WHERE.items():
        if k == key:
            why = _absent(cfg, model, (VANILLA,))
            return model, why, None if why else where_evidence(cells_, model, quarter, cfg.length, diverged,
                                                               int(cfg[f"{model}_vocab"]))
    level = claims.get(key).rule.params["level"]              # a level claim about trained models (protocol 4)
    if key == S4D_T1:
        why = _absent(cfg, "s4d", (VANILLA, PE))
        return "s4d", why, None if why else s4d_t1_evidence(cells_, level)
    model = next(m for m, k in NEAR_PERFECT.items() if k == key)
    why = _absent(cfg, model, (PE,))
    return model, why, None if why else near_perfect_evidence(cells_, model, cfg.length, level)


def vanilla_harm_premise(sh: pd.DataFrame, model: str) -> dict:
    """The premise of the claims that explain or locate the vanilla harm (protocol 3): RARE disturbants harm
    the vanilla model, the per-seed harm's Student-t interval above 0. Where it fails, the runs cannot refute
    a claim about that harm."""
    v = _of(sh, model, VANILLA)
    harm = (v["acc_frequent"] - v["acc_rare"]).to_numpy(float)
    if len(harm) < 2:
        return {"holds": False, "text": f"{len(harm)} vanilla seeds: no harm shown"}
    mean, lo, hi = t_interval(harm)
    return {"holds": bool(lo > 0), "text": f"vanilla {model_name(model)} harm from RARE disturbants "
                                          f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"}


def harm_premise_of_runs(frame: pd.DataFrame, model: str) -> dict:
    """:func:`vanilla_harm_premise` read from the stored runs of ``frame`` ({} for a hand-built table)."""
    at = frame[frame["model"] == model]
    if "path" not in at or not at["path"].astype(str).str.len().all():
        return {}
    return vanilla_harm_premise(seed_harm(cells(at)), model)


# the variants whose training state a claim's verdict rests on, and whether its premise is the vanilla harm
VARIANTS = {**{k: ((VANILLA,), False) for k in HARM.values()},
            **{k: ((VANILLA, PE), True) for k in ROBUST.values()},
            **{k: ((VANILLA,), True) for k in DISTURBANTS.values()},
            **{k: ((VANILLA,), True) for k, _ in WHERE.values()},
            **{k: ((VANILLA,), False) for k in sec4_2.RARE_TARGET.values()},
            **{k: ((PE,), False) for k in (*sec4_2.PE_TARGET.values(), *NEAR_PERFECT.values())},
            EXCEPTION: ((PE,), False)}


def grade_claims(cfg, frame: pd.DataFrame, sh: pd.DataFrame, cells_: pd.DataFrame,
                 at_half: Optional[tuple] = None, at_quarter: Optional[tuple] = None) -> list:
    """Grade every claim of the chapter (``penb.claims.of_chapter("frequency")``, the GRU's exception included);
    returns the ``penb.claims.Grade`` list.

    frame: the runs (diverged included); sh: ``seed_harm`` over all targets; cells_: the grid's counts;
    at_half: the same four of the runs at half their updates (protocol 4's doubling test:
    ``penb.chapters.frequency.analysis.half_inputs``), None when there are none; at_quarter: the same at a
    quarter of their updates (protocol 6's horizon), where the preset trains them.
    """
    if (sh["target"] != "all").any():
        raise ValueError("the registered measure is over all targets (seed_harm(cells, 'all'))")
    diverged = diverged_counts(frame)
    out = []
    for c in claims.of_chapter("frequency"):
        model, why, ev = _claim_evidence(cfg, c.key, frame, sh, cells_, diverged)
        vocab = int(cfg[f"{model}_vocab"])
        if why:
            out.append(claims.not_tested(c.key, why, cfg))
            continue
        variants, premise = VARIANTS.get(c.key, ((VANILLA, PE), False))
        if premise:
            ev = {**ev, "premise": vanilla_harm_premise(sh, model)}
        state = training.of_frame(frame, "variant", variants, {v: f"{v} {model_name(model)}" for v in variants},
                                  where={"model": model})
        ev_half = _claim_evidence(cfg, c.key, *at_half)[2] if at_half else None
        ev_quarter = _claim_evidence(cfg, c.key, *at_quarter)[2] if at_quarter else None
        out.append(claims.grade(c.key, ev, cfg, training=state, half=ev_half, quarter=ev_quarter,
                                budgets=rnn_common.budgets(cfg, model), vocab=vocab,
                                next_cost=rnn_common.next_cost(frame, cfg, model)))
    return out


