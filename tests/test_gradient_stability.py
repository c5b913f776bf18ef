"""The chapter "Gradient stability" (Fig. 5): seed pooling against the statistics of the concatenated pairs,
the drop of the similarity against a hand computation, the readings' check on a trained model against
their closed forms, the scoring of a run's checkpoints (cached, shared runs), and bad input."""
import numpy as np
import pandas as pd
import pytest

from penb import presets
from penb.chapters import frequency
from penb.chapters.gradient_stability import analysis as sc


def per_seed_rows(raw: dict) -> pd.DataFrame:
    """Rows as ``stability_over_training`` gives them: mean, sd (ddof 1), n of each seed's pairs."""
    rows = []
    for (seed, d), v in raw.items():
        rows.append(dict(core="gru", variant="vanilla", method="weighted_rows", step=10, target="frequent",
                         disturbants=d, seed=seed, similarity=v.mean(), sd=v.std(ddof=1), n=len(v)))
    return pd.DataFrame(rows)


def test_summarize_pools_seeds_like_the_concatenated_pairs():
    rng = np.random.default_rng(0)
    raw = {(s, d): rng.normal(0.9 if d == "frequent" else 0.5, 0.1, size=n)
           for s, n in ((1, 7), (2, 12), (3, 5)) for d in ("frequent", "rare")}
    summ = sc.summarize(per_seed_rows(raw))
    for d in ("frequent", "rare"):
        allv = np.concatenate([v for (s, dd), v in raw.items() if dd == d])
        row = summ[summ.disturbants == d].iloc[0]
        assert row.similarity == pytest.approx(allv.mean(), rel=1e-12)
        assert row.ci == pytest.approx(1.96 * allv.std(ddof=1) / np.sqrt(len(allv)), rel=1e-10)
        assert row.n == len(allv) and row.seeds == 3
    drops = sc.drops(summ)
    fr = np.concatenate([raw[s, "frequent"] for s in (1, 2, 3)])
    ra = np.concatenate([raw[s, "rare"] for s in (1, 2, 3)])
    half = 1.96 * np.sqrt(fr.var(ddof=1) / len(fr) + ra.var(ddof=1) / len(ra))
    row = drops.iloc[0]
    assert row["drop"] == pytest.approx(fr.mean() - ra.mean(), rel=1e-12)
    assert row["drop_hi"] - row["drop"] == pytest.approx(half, rel=1e-10)
    with pytest.raises(ValueError, match="unknown method"):
        sc.drops(summ, method="cosine")
    with pytest.raises(ValueError, match="no scores"):
        sc.drops(summ, step=3)


def test_claims_table_and_verdict():
    rows = []
    for core in ("gru", "lstm"):
        for variant, (f, r) in {"vanilla": (0.9, 0.4), "position-encoded": (0.9, 0.88)}.items():
            rows.append(dict(core=core, variant=variant, step=100, frequent=f, rare=r, drop=f - r,
                             drop_lo=f - r - 0.02, drop_hi=f - r + 0.02))
    table = sc.claims_table(pd.DataFrame(rows))
    assert table.separated.all() and sc.verdict(table) == "direction reproduced"
    rows[0].update(drop=0.01, drop_lo=-0.01, drop_hi=0.03)                  # GRU vanilla: no drop
    assert sc.verdict(sc.claims_table(pd.DataFrame(rows))) == "partly reproduced"


def test_target_positions_and_bad_presets():
    cfg = presets.resolve("gradient_stability", "paper")
    assert sc.target_position(cfg, "gru") == sc.target_position(cfg, "lstm") == 0
    assert sc.target_position(cfg, "s4d") == 22                               # t = 23 of 64 (Sec. 4.3)
    assert sc.target_position(cfg.replace(s4d_target=5), "s4d") == 4
    for override, match in ((dict(pairs=6), "multiple of 4"), (dict(method="cosine"), "method"),
                            (dict(engine="autograd"), "engine"), (dict(s4d_target=64), "s4d_target"),
                            (dict(lstm_output="c"), "lstm_output"), (dict(length=6), "multiple of 4")):
        with pytest.raises(ValueError, match=match):
            presets.resolve("gradient_stability", "paper", **override)


def test_scoring_the_shared_runs(tmp_path):
    cfg = presets.resolve("gradient_stability", "smoke", cores=("gru", "lstm"))
    runs = frequency.analysis.run(cfg, store=tmp_path, progress=False)
    assert len(runs) == 2 * len(cfg.seeds) * len(cfg.encodings)
    curves = sc.curves(cfg, runs, progress=False)
    steps = list(range(cfg.checkpoint_every, cfg.steps + 1, cfg.checkpoint_every))
    assert sorted(curves.step.unique()) == steps
    assert (curves.n == cfg.pairs // 4).all() and set(curves.method) == set(sc.similarity.METHODS)
    assert len(curves) == len(runs) * len(steps) * 4 * 4
    files = [sc.cache_path(p, sc.options(cfg, m)) for p, m in zip(runs.path, runs.model)]
    assert all(f.exists() for f in files)
    before = [f.stat().st_mtime_ns for f in files]
    again = sc.curves(cfg, runs, progress=False)                             # read from the cache
    assert [f.stat().st_mtime_ns for f in files] == before
    pd.testing.assert_frame_equal(curves, again)
    rep = curves[(curves.method == "weighted_rows")]
    assert ((rep.similarity >= -1) & (rep.similarity <= 1)).all()


def test_readings_check_on_a_trained_model(tmp_path):
    cfg = presets.resolve("gradient_stability", "smoke", cores=("lstm",), encodings=("none",))
    runs = frequency.analysis.run(cfg, store=tmp_path, progress=False)
    identity, pairs = sc.readings_check(runs.path[0], cfg, n=4)
    ident = identity.set_index("method")
    for m in ("weighted_rows", "frobenius", "mean_rows"):
        assert ident.loc[m, "J_vs_J"] == pytest.approx(1, abs=1e-12)
        assert ident.loc[m, "J_vs_2J"] == pytest.approx(1, abs=1e-12)
        assert ident.loc[m, "J_vs_minus_J"] == pytest.approx(-1, abs=1e-12)
    printed = ident.loc["printed"]
    assert printed.J_vs_J == pytest.approx(printed.closed_form, rel=1e-10)
    assert abs(printed.J_vs_J - 1) > 0.05 and printed.J_vs_2J == pytest.approx(2 * printed.J_vs_J, rel=1e-10)
    D = cfg.hidden                                                            # LSTM output h: D rows
    assert 1 / D - 1e-12 <= printed.unit_rows <= 1 and printed.unit_rows < 1
    assert np.allclose(pairs.weighted_rows_x_sum_alpha_beta, pairs.frobenius, atol=1e-12)
    assert ((pairs.sum_alpha_beta > 0) & (pairs.sum_alpha_beta <= 1 + 1e-12)).all()
    assert list(zip(pairs.target, pairs.disturbants)) == [("frequent", "frequent"), ("frequent", "rare"),
                                                          ("rare", "frequent"), ("rare", "rare")]
