"""The rest of Sec. 4.2's statements (issues 28 and 35), graded through ``penb.claims`` beside
``penb.chapters.frequency.grading``:

* ``morita.fig3.rare_target.<model>``: among FREQUENT disturbants the vanilla model retrieves RARE targets
  successfully (rule "level" on its per-seed accuracy on RARE targets there);
* ``morita.fig3.pe_target.<rnn>``: the PE RNN is robust to the frequency of the target (rule "no_gain" on its
  FREQUENT and RARE target accuracies, the GRU's exception left out);
* ``morita.fig3.gru_exception``: the PE GRU is not near perfect on all-RARE sequences with the target in the first
  half, while it is near perfect elsewhere (a level claim about trained models, as
  ``morita.fig3.pe_near_perfect``).

``cells_`` is the test grid's counts (:func:`penb.chapters.frequency.grid.cells`).
"""
from __future__ import annotations

import pandas as pd

from penb import claims
from penb.chapters.frequency.gates import absent as _absent, of as _of
from penb.chapters.frequency.gates import learned, vanilla_control as _vanilla_control
from penb.chapters.frequency.grid import majority_level, per_seed, quarter_cells, quarter_label, quarters
from penb.chapters.frequency.harm import PE, VANILLA
from penb.names import model_name

RARE_TARGET = {core: f"morita.fig3.rare_target.{core}" for core in ("gru", "lstm", "s4d")}
PE_TARGET = {core: f"morita.fig3.pe_target.{core}" for core in ("gru", "lstm")}
EXCEPTION = "morita.fig3.gru_exception"
KEYS = (*RARE_TARGET.values(), *PE_TARGET.values(), EXCEPTION)


def rare_target_evidence(cells_: pd.DataFrame, model: str, diverged: dict, vocab: int) -> dict:
    """``morita.fig3.rare_target.<model>`` (rule "level"): per vanilla seed, the accuracy on RARE targets among
    FREQUENT disturbants, all positions (``a``); the control is that the vanilla model learned (its accuracy with
    FREQUENT disturbants, both target groups, above chance). No baseline on ``a``: RARE targets at chance while
    the model learned are a level not reached, which the claim is about."""
    at = _of(cells_[(cells_["disturbants"] == "frequent") & (cells_["target"] == "rare")], model, VANILLA)
    s = per_seed(at, []).sort_values("seed")
    name = model_name(model)
    return dict(a=s["accuracy"].tolist(), baseline=None, diverged={VANILLA: int(diverged.get((model, VANILLA), 0))},
                controls=_vanilla_control(cells_, model, vocab),
                a_name=f"vanilla {name}, RARE targets among FREQUENT disturbants", seeds=[int(x) for x in s["seed"]])


def pe_target_evidence(cells_: pd.DataFrame, model: str, diverged: dict, vocab: int, length: int) -> dict:
    """``morita.fig3.pe_target.<model>`` (rule "no_gain"): per PE seed, the accuracy on FREQUENT targets (``a``)
    and on RARE targets (``b``), each the mean of its two disturbant groups; for the GRU the first half of
    positions under RARE disturbants is left out for both target groups (the text's exception,
    ``morita.fig3.gru_exception``). The control is that the PE model learned (accuracy with FREQUENT disturbants
    above chance)."""
    at = _of(cells_, model, PE)
    if model == "gru":
        at = at[~((at["disturbants"] == "rare") & (at["position"] <= length // 2))]
    w = per_seed(at, ["target", "disturbants"]).pivot_table(index="seed", columns=["target", "disturbants"],
                                                           values="accuracy").sort_index()
    groups = [(t, d) for t in ("frequent", "rare") for d in ("frequent", "rare")]
    if not set(groups) <= set(w.columns):                        # no valid PE run: no seed to pair
        w = pd.DataFrame(columns=pd.MultiIndex.from_tuples(groups))
    w = w[groups].dropna()
    a = (w["frequent", "frequent"] + w["frequent", "rare"]) / 2
    b = (w["rare", "frequent"] + w["rare", "rare"]) / 2
    name = model_name(model)
    return dict(a=a.tolist(), b=b.tolist(), baseline=None, diverged={PE: int(diverged.get((model, PE), 0))},
                controls={f"the PE {name}'s accuracy with FREQUENT disturbants":
                          [learned(cells_, model, PE), 1 / vocab]},
                a_name=f"PE {name}, FREQUENT targets", b_name="RARE targets", seeds=[int(x) for x in w.index])


def exception_check(values: pd.DataFrame, exception: list, level: float) -> dict:
    """The check of ``morita.fig3.gru_exception`` on per-condition seed values (one column per condition, one
    row per seed): the ``exception`` columns wholly below ``level`` while more than half of the others have a
    mean at or above it. ``levels`` (per seed, ``level_seeds`` the rows' index): the higher of the exception's
    conditions and the accuracy more than half of the others reach (protocol 4's doubling test)."""
    missing = [c for c in exception if c not in values.columns]
    if missing:                                                  # no valid PE GRU run holds those conditions
        return dict(passed=False, detail=f"no seed holds {', '.join(missing)}", levels={}, level_seeds=[],
                    inconclusive="no valid PE GRU run to read the exception on")
    rows = {c: claims.seed_interval(values[c].dropna().to_numpy(float)) for c in values.columns}
    others = [c for c in rows if c not in exception]
    near = [c for c in others if rows[c][0] >= level]
    below = [c for c in exception if rows[c][2] < level]
    perfect = [c for c in exception if rows[c][1] >= level]
    detail = ("; ".join(f"{c} {m:.3f} [{lo:.3f}, {hi:.3f}]" for c, (m, lo, hi) in rows.items() if c in exception)
              + f"; {len(near)}/{len(others)} other conditions with a seed mean at or above {level}")
    out = dict(levels={"the PE GRU's higher exception condition": values[exception].max(axis=1).tolist(),
                       "the accuracy more than half of the other conditions reach":
                           majority_level(values[others]).tolist()},
               level_seeds=[int(s) for s in values.index])
    if len(values) < 3:
        return dict(out, passed=False, detail=detail, inconclusive=f"{len(values)} seeds: the intervals need 3")
    if len(near) <= len(others) / 2:
        return dict(out, passed=False, detail=detail, inconclusive=(
            f"the PE GRU is near perfect in only {len(near)} of the other {len(others)} conditions: no "
            "near-perfect model for the exception to stand out from"))
    if len(below) == len(exception):
        return dict(out, passed=True, detail=detail)
    if perfect:
        return dict(out, passed=False, detail=detail, why=f"near perfect where the text sees the exception: "
                                                          f"{', '.join(perfect)}")
    return dict(out, passed=False, detail=detail, inconclusive=f"the exception's intervals straddle {level}")


def exception_evidence(cells_: pd.DataFrame, length: int, level: float) -> dict:
    """``morita.fig3.gru_exception``: the PE GRU's per-seed accuracy in each of the 16 conditions; the exception
    is RARE target x RARE disturbants in the first two quarters of positions."""
    s = per_seed(quarter_cells(_pe_gru(cells_), length), ["target", "disturbants", "quarter"])
    w = s.pivot_table(index="seed", columns=["target", "disturbants", "quarter"], values="accuracy")
    w.columns = [f"target {t}/{d} t {q}" for t, d, q in w.columns]
    first_half = [quarter_label([lo], length)[0] for lo, _ in quarters(length)[:2]]    # "1-16", "17-32"
    return exception_check(w, [f"target rare/rare t {q}" for q in first_half], level)


def _pe_gru(cells_: pd.DataFrame) -> pd.DataFrame:
    return cells_[(cells_["model"] == "gru") & (cells_["variant"] == PE)]


def evidence(cfg, key: str, cells_: pd.DataFrame, diverged: dict) -> tuple[str, str, dict | None]:
    """(model, why not tested, evidence) of claim ``key`` (one of :data:`KEYS`)."""
    if key == EXCEPTION:
        why = _absent(cfg, "gru", (PE,))
        return "gru", why, None if why else exception_evidence(cells_, cfg.length,
                                                                claims.get(key).rule.params["level"])
    if key in PE_TARGET.values():
        model = next(m for m, k in PE_TARGET.items() if k == key)
        why = _absent(cfg, model, (PE,))
        return model, why, None if why else pe_target_evidence(cells_, model, diverged, int(cfg[f"{model}_vocab"]),
                                                                cfg.length)
    model = next(m for m, k in RARE_TARGET.items() if k == key)
    why = _absent(cfg, model, (VANILLA,))
    return model, why, None if why else rare_target_evidence(cells_, model, diverged, int(cfg[f"{model}_vocab"]))
