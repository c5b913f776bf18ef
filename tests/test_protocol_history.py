"""The committed table of every protocol's verdicts (issue 66, penb.claims.history), checked against the recorded
grades read here by hand."""
import json

from penb.claims import archives, history


def test_a_recorded_grade_gives_one_row_per_protocol_it_recorded(tmp_path):
    grades = {"x.a": {"chapter": "c", "preset": "p", "protocol": 8, "verdict": "inconclusive",
                      "previous": repr({"1": {"verdict": "not reproduced"}, "7": {"verdict": "inconclusive"}})},
              "x.b": {"chapter": "c", "preset": "p", "protocol": 8, "verdict": "not tested", "previous": {}}}
    rows = history.rows_of(grades, "src", "abc")
    assert [(r["claim"], r["protocol"], r["verdict"]) for r in rows] == [
        ("x.a", 1, "not reproduced"), ("x.a", 7, "inconclusive"), ("x.a", 8, "inconclusive"),
        ("x.b", 8, "not tested")]
    assert {r["commit"] for r in rows} == {"abc"} and {r["source"] for r in rows} == {"src"}
    history.write(rows, tmp_path / "t.csv")
    assert history.read(tmp_path / "t.csv") == rows
    assert history.verdict(rows, "src", "x.a", 1) == "not reproduced" and history.verdict(rows, "src", "x.a", 2) is None


def test_a_later_execution_overrides_its_own_rows_and_keeps_the_rest():
    old = [{"source": "s", "claim": "k", "protocol": p, "verdict": f"v{p}"} for p in (1, 2)]
    new = [{"source": "s", "claim": "k", "protocol": 2, "verdict": "w2"},
           {"source": "s", "claim": "k", "protocol": 3, "verdict": "w3"}]
    got = {r["protocol"]: r["verdict"] for r in history.merged(old, new)}
    assert got == {1: "v1", 2: "w2", 3: "w3"}


def test_the_committed_table_holds_every_archives_recorded_verdicts():
    """Counted by hand from each archive's grades file: one row for the protocol it was graded under and one for each
    earlier protocol it recorded, with the commit its manifest says archived it (an archive made again also keeps
    the rows of its earlier execution that the new one does not record). An archive graded again
    (``python -m penb regrade``, its manifest's ``regraded``) holds the new protocol's rows under the regrade's
    commit, and keeps a row for every claim under some earlier protocol, under the commit that archived it."""
    table = history.read()
    for folder in archives.folders():
        man = json.loads((folder / "manifest.json").read_text())
        grades = json.loads(next(folder.glob("*.grades.json")).read_text())
        mine = [r for r in table if r["source"] == folder.name]
        for claim, g in grades.items():
            assert history.verdict(table, folder.name, claim, int(g["protocol"])) == g["verdict"]
        again = man.get("regraded")
        if again is None:
            made = man["archived"]["commit"]
            now = [r for r in mine if r["commit"] == made]
            assert len(now) == sum(1 + len(history._previous(g)) for g in grades.values()), folder.name
            # an archive made again keeps the rows its earlier execution recorded and this one does not (a protocol
            # graded then, not now), under that execution's commit; never a second row for one protocol
            recorded = {(c, p) for c, g in grades.items() for p in {int(g["protocol"]), *history._previous(g)}}
            assert all((r["claim"], r["protocol"]) not in recorded for r in mine if r["commit"] != made), folder.name
            continue
        now = [r for r in mine if r["protocol"] == again["protocol"]]
        earlier = [r for r in mine if r["protocol"] < again["protocol"]]
        assert len(now) == len(grades) and {r["commit"] for r in now} == {again["commit"]}, folder.name
        assert {r["claim"] for r in earlier} == set(grades), folder.name
        assert {r["commit"] for r in earlier} == {man["archived"]["commit"]}, folder.name


def test_the_scorecard_counts_each_archives_verdicts_under_each_protocol():
    rows = [{"source": "a-deep", "claim": c, "protocol": p, "verdict": v}
            for c, p, v in (("x", 7, "inconclusive"), ("x", 8, "not reproduced"), ("y", 8, "inconclusive"),
                            ("z", 8, "not tested"))] + [{"source": "quick", "claim": "x", "protocol": 8,
                                                        "verdict": "reproduced"}]
    lines = history.archived_history(rows)
    got = {line.split("|")[1].strip() + "/" + line.split("|")[2].strip(): [c.strip() for c in line.split("|")[3:-1]]
           for line in lines if line.startswith("| a-deep")}
    order = list(history.SHORT)
    want7 = ["1" if v == "inconclusive" else "0" for v in order]
    want8 = ["1" if v in ("not reproduced", "inconclusive", "not tested") else "0" for v in order]
    assert got == {"a-deep/7": want7, "a-deep/8": want8}
    assert history.archived_history([rows[-1]]) == []


def test_the_code_grades_under_the_protocol_in_force_only(tmp_path, monkeypatch):
    """Issue 66: no rule, test or composition takes an earlier protocol, and a grade carries no earlier verdicts:
    those are the committed table's. (A new protocol adds rows to the table, not a branch to the code.)"""
    import dataclasses
    import inspect

    from penb import claims
    from penb.claims import composition, doubling, grading, horizon, intervals, scorecard

    for f in (grading.apply, grading.sesoi_of, intervals.seed_interval, composition.compose, composition.settle,
              doubling.reads, doubling.test, horizon.test, horizon.carried_either):
        assert "protocol" not in inspect.signature(f).parameters, f.__qualname__
    assert "previous" not in {f.name for f in dataclasses.fields(grading.Grade)}
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    g = claims.grade("morita.fig2.gru", {"a": [0.9, 0.91, 0.92], "b": [0.5, 0.51, 0.5], "baseline": 1 / 256})
    rec = scorecard.collect(tmp_path)["morita.fig2.gru"]
    assert rec["protocol"] == grading.PROTOCOL and "previous" not in rec and rec["verdict"] == g.verdict
