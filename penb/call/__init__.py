"""One package for GPU work in short calls (issue 60): what a device call is, sizes, trains, hands back and archives.

* :mod:`penb.call.limits`: the call's limits, defined once (seconds, files, bytes, what the next call carries in);
* :mod:`penb.call.fit`: how a call sizes itself on its device (never refused; fixed targets, depth first);
* :mod:`penb.call.budgeted`: the one time-budgeted driver (plan, drive, describe, collect) the lease and the slice
  share;
* :mod:`penb.call.slice`: many small runs as batches in one call; :mod:`penb.call.lease`: paper-sized runs in steps;
* :mod:`penb.call.device_run`: one command per call (preflight, the tree, the slice, the CUDA tests; a dry run here);
* :mod:`penb.call.archive`: a handed-back folder restored into a store and a chapter executed on it, committed under
  ``book/archived/``.

``scripts/device_call.sh`` (``make device-run``) is the command a lent machine runs; ``tests/test_call.py``
rehearses it twice on the CPU.
"""
