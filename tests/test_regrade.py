"""An archive graded again from its committed results alone (penb.call.regrade, issue 66).

The route is checked where its answer is known: key_findings-deep_v2 was graded under the protocol in force by its
executed notebook, with every run's predictions in a store. Graded again from results.json alone, every claim must
come out with the same verdict, the same numbers and the same reasons. An archive whose chapter reads predictions, or
whose runs this code does not plan, is refused in one line before anything is written.
"""
import json
import shutil

import pytest

from penb.call import regrade
from penb.claims import history
from penb.claims.protocol import PROTOCOL
from penb.store import paths

ARCHIVED = paths.REPO / "book" / "archived"
pytestmark = pytest.mark.real_horizon        # graded as the archive was: under the real horizon (tests/conftest.py)


def without_legacy(detail):
    """A recorded detail without the doubling record protocol 4 once added beside the protocol in force, and
    without each model's training readings (an archive commits each history thinned to a log grid,
    ``penb.call.archive.committed``, so its curve and the rise and end read from it differ a little; which models
    still learn, the state the verdict reads, is kept)."""
    if isinstance(detail, dict):
        return {k: without_legacy(v) for k, v in detail.items()
                if k != "doubling_p4" and not (k == "models" and "learning" in detail)}
    return detail


def test_results_alone_give_the_executed_notebooks_grades():
    folder = ARCHIVED / "key_findings-deep_v2"
    recorded = json.loads((folder / "key_findings.grades.json").read_text())
    assert {g["protocol"] for g in recorded.values()} == {PROTOCOL}      # graded under the protocol in force
    got = regrade.regrade(folder, write=False)
    assert set(got) == set(recorded)
    for claim, g in recorded.items():
        for field in ("verdict", "ours", "reason", "paper", "scale"):
            assert got[claim].get(field) == g.get(field), (claim, field)
        assert without_legacy(got[claim].get("detail")) == without_legacy(g.get("detail")), claim
    assert any(g["verdict"] not in ("not tested",) for g in got.values())


@pytest.mark.parametrize("name, match", [("frequency-deep", "reads the runs' predictions"),
                                         ("key_findings-lease", "not in results.json")])
def test_an_archive_that_cannot_be_graded_from_its_results_is_refused_in_one_line(tmp_path, name, match):
    folder = tmp_path / name
    shutil.copytree(ARCHIVED / name, folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(ValueError, match=match) as err:
        regrade.regrade(folder)
    assert "\n" not in str(err.value)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before          # nothing written


def test_a_regrade_writes_the_grades_says_how_and_adds_its_rows_to_the_history(tmp_path, monkeypatch):
    folder = tmp_path / "key_findings-deep_v2"
    shutil.copytree(ARCHIVED / "key_findings-deep_v2", folder)
    table = tmp_path / "history.csv"
    monkeypatch.setattr(history, "TABLE", table)
    monkeypatch.setenv("PENB_COMMIT", "1" * 40)
    grades = regrade.regrade(folder)
    assert json.loads((folder / "key_findings.grades.json").read_text()) == grades
    man = json.loads((folder / "manifest.json").read_text())
    assert man["regraded"]["protocol"] == PROTOCOL and man["regraded"]["commit"] == "1" * 40
    rows = history.read(table)
    assert {(r["claim"], r["protocol"], r["verdict"]) for r in rows} == \
        {(k, PROTOCOL, g["verdict"]) for k, g in grades.items()}
    assert {r["source"] for r in rows} == {"key_findings-deep_v2"}
