"""The run store: where every run lives, how it is named, and how it is read and written.

* :mod:`.paths`: where things live (the checkout, the store ``$PENB_STORE``, the executed chapters, shared/);
* :mod:`.identity`: a run's key (the hash of its normalised configuration and ``STORE_VERSION``) and the
  environment it records (commit, torch, device);
* :mod:`.runs`: train or reuse runs under per-run locks, sweeps, and every read of a run;
* :mod:`.run_result`: one finished (or diverged) run as read back (``RunResult``);
* :mod:`.atomic`: writes that are never seen half-done (temporary file, fsync, rename).

Budgets that share a trunk keep its checkpoints beside the runs (:mod:`penb.trunks`). Import a module by name,
``from penb.store import runs``: this package's ``__init__`` imports nothing, so no module below it imports back.
"""
