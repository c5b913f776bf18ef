"""The run store, at the bottom of penb: where every run lives and how a run folder is written and read back. It
imports nothing above it (``tests/test_imports.py``): a configuration's key is made by ``penb.runs`` (normalised
config, task identity) and only hashed here.

* :mod:`.paths`: where things live (the checkout, the store ``$PENB_STORE``, the executed chapters, shared/) and a
  run folder's checkpoint files;
* :mod:`.identity`: the store version, the hash of a run's key fields, and the environment a result records
  (commit, torch, device);
* :mod:`.run_result`: one finished (or diverged) run as read back (``RunResult``);
* :mod:`.atomic`: writes that are never seen half-done (temporary file, fsync, rename).

Import a module by name, ``from penb.store import paths``: this package's ``__init__`` imports nothing.
"""
