"""The rest of Sec. 4.2's statements (issue 28), graded through ``penb.claims`` beside
``penb.chapters.frequency.grading``:

* ``morita.fig3.rare_target.<model>``: among FREQUENT disturbants the vanilla model retrieves a RARE target as
  well as a FREQUENT one (rule "no_gain" on FREQUENT minus RARE target accuracy, per seed);
* ``morita.fig3.gru_exception``: the PE GRU is not near perfect on all-RARE sequences with the target in the first
  half, while it is near perfect elsewhere (a level claim, gated on the paper's updates as
  ``morita.fig3.pe_near_perfect``).

``cells_`` is the test grid's counts (:func:`penb.chapters.frequency.grid.cells`).
"""
from __future__ import annotations

import pandas as pd

from penb import claims
from penb.chapters.frequency.gates import absent as _absent, of as _of, short as _short
from penb.chapters.frequency.gates import vanilla_control as _vanilla_control
from penb.chapters.frequency.grid import per_seed, quarter_cells, quarter_label, quarters
from penb.chapters.frequency.harm import PE, VANILLA
from penb.names import model_name

RARE_TARGET = {core: f"morita.fig3.rare_target.{core}" for core in ("gru", "lstm", "s4d")}
EXCEPTION = "morita.fig3.gru_exception"
KEYS = (*RARE_TARGET.values(), EXCEPTION)


def rare_target_evidence(cells_: pd.DataFrame, model: str, diverged: dict, vocab: int) -> dict:
    """``morita.fig3.rare_target.<model>``: per vanilla seed, with FREQUENT disturbants (all positions), the
    accuracy on FREQUENT targets (``a``) and on RARE targets (``b``); the control is that the vanilla model
    learned (its accuracy with FREQUENT disturbants above chance)."""
    at = _of(cells_[cells_["disturbants"] == "frequent"], model, VANILLA)
    w = per_seed(at, ["target"]).pivot_table(index="seed", columns="target", values="accuracy").sort_index()
    ok = {"frequent", "rare"} <= set(w.columns)
    w = w[["frequent", "rare"]].dropna() if ok else pd.DataFrame(columns=["frequent", "rare"])
    name = model_name(model)
    return dict(a=w["frequent"].tolist(), b=w["rare"].tolist(), baseline=None,
                diverged={VANILLA: int(diverged.get((model, VANILLA), 0))},
                controls=_vanilla_control(cells_, model, vocab),
                a_name=f"vanilla {name}, FREQUENT targets among FREQUENT disturbants", b_name="RARE targets",
                seeds=[int(s) for s in w.index])


def exception_check(values: pd.DataFrame, exception: list, level: float) -> dict:
    """The check of ``morita.fig3.gru_exception`` on per-condition seed values (one column per condition, one
    row per seed): the ``exception`` columns wholly below ``level`` while more than half of the others have a
    mean at or above it."""
    rows = {c: claims.seed_interval(values[c].dropna().to_numpy(float)) for c in values.columns}
    others = [c for c in rows if c not in exception]
    near = [c for c in others if rows[c][0] >= level]
    below = [c for c in exception if rows[c][2] < level]
    perfect = [c for c in exception if rows[c][1] >= level]
    detail = ("; ".join(f"{c} {m:.3f} [{lo:.3f}, {hi:.3f}]" for c, (m, lo, hi) in rows.items() if c in exception)
              + f"; {len(near)}/{len(others)} other conditions with a seed mean at or above {level}")
    if len(values) < 3:
        return dict(passed=False, detail=detail, inconclusive=f"{len(values)} seeds: the intervals need 3")
    if len(near) <= len(others) / 2:
        return dict(passed=False, detail=detail, inconclusive=(
            f"the PE GRU is near perfect in only {len(near)} of the other {len(others)} conditions: no "
            "near-perfect model for the exception to stand out from"))
    if len(below) == len(exception):
        return dict(passed=True, detail=detail)
    if perfect:
        return dict(passed=False, detail=detail, why=f"near perfect where the text sees the exception: "
                                                     f"{', '.join(perfect)}")
    return dict(passed=False, detail=detail, inconclusive=f"the exception's intervals straddle {level}")


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
        level = claims.get(key).rule.params
        why = _absent(cfg, "gru", (PE,)) or _short(cfg, "gru", level["min_fraction_of_paper_steps"])
        return "gru", why, None if why else exception_evidence(cells_, cfg.length, level["level"])
    model = next(m for m, k in RARE_TARGET.items() if k == key)
    why = _absent(cfg, model, (VANILLA,))
    return model, why, None if why else rare_target_evidence(cells_, model, diverged, int(cfg[f"{model}_vocab"]))
