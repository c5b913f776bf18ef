"""Training code declared to compute what an earlier training code computed (issue 67): a refactor that moves code
but not what an update does may continue a long run's state trained before it.

A change to :data:`penb.long_run.TRAINING_CODE` gives a new code identity, and :func:`penb.long_run.restore` refuses
a state trained under another. Where the change moves code and nothing else, ``scripts/same_training.py --old
COMMIT`` trains the same small runs (every core, a stacked batch, a WSD branch) under the old commit's tree and this
one, on one machine, and records each run's digest (predictions, metrics, history) from both in :data:`RECORD`. An
entry whose digests all agree lets this code continue the old one's state (:func:`continues`); one that disagrees
lets nothing through.
"""
from __future__ import annotations

import json
from typing import Optional

from penb.store import paths

RECORD = paths.REPO / "penb" / "long_run" / "same_training.json"


def records() -> list[dict]:
    """The committed entries: {"identity", "continues", "old_commit", "new_commit", "host", "runs": {name: [old
    digest, new digest]}}."""
    return json.loads(RECORD.read_text()) if RECORD.exists() else []


def shown_same(entry: dict) -> bool:
    """Whether ``entry`` holds runs and each gave the same digest under both trees."""
    return bool(entry.get("runs")) and all(len(set(d)) == 1 for d in entry["runs"].values())


def continues(trained: Optional[str], identity: str, entries: Optional[list] = None) -> bool:
    """Whether code ``identity`` may continue a state trained under ``trained``: the same identity, or a chain of
    entries shown the same (:func:`shown_same`) leading from ``identity`` back to ``trained``."""
    back = {e["identity"]: e["continues"] for e in (records() if entries is None else entries) if shown_same(e)}
    seen = set()
    while identity is not None and identity not in seen:
        if identity == trained:
            return True
        seen.add(identity)
        identity = back.get(identity)
    return False
