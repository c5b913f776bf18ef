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
    earlier protocol it recorded, with the commit its manifest says archived it."""
    table = history.read()
    for folder in archives.folders():
        man = json.loads((folder / "manifest.json").read_text())
        grades = json.loads(next(folder.glob("*.grades.json")).read_text())
        mine = [r for r in table if r["source"] == folder.name]
        assert len(mine) == sum(1 + len(history._previous(g)) for g in grades.values()), folder.name
        assert {r["commit"] for r in mine} == {man["archived"]["commit"]}
        for claim, g in grades.items():
            assert history.verdict(table, folder.name, claim, int(g["protocol"])) == g["verdict"]
