"""The one trainer (issue 48): K >= 1 runs over a leading run axis, one loop, one place where weights change.

    run.py       one run's own state: config, task, held-out set, model, moments, checkpoints, evaluation
    data.py      training batches keyed by (seed, block of updates): the same alone or in any batch
    schedule.py  the learning rate of each run at its own update, as a [K] tensor
    kernels.py   how K runs compute logits: "module" (one run's own model) or "stacked" (per-run GRU/LSTM weights)
    adam.py      per-run clipping and Adam over parameters with a run axis
    update.py    one update of K runs (compiles whole)
    policy.py    where batching and compiling pay, per device (measured thresholds)
    packing.py   the live runs laid into one batch: slots, kernel, moments, [K] values, feed, the update
    loop.py      Trainer: when to pack, the loop, logging, checkpoints, branch points, exits
    results.py   finish (predictions and result.json); penb.runner.train_one trains one run into the store
"""
from penb.trainer.loop import FREE, Trainer, group_key  # noqa: F401
from penb.trainer.results import finish  # noqa: F401
from penb.trainer.run import Diverged, Run, build_model, load_model  # noqa: F401
