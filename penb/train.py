"""Training one run or many: the names other modules and the notebooks import, from :mod:`penb.trainer`.

A run is a flat dict of fields (``penb.run_config``: ``DEFAULTS``, ``normalize``). The trainer, its schedule, its data
and its checkpoints are described in :mod:`penb.trainer`; this module only re-exports them.
"""
from penb.metrics import summarize  # noqa: F401
from penb.run_config import AMP, DEFAULTS, RunConfig, decay_start, derive_seed, normalize  # noqa: F401
from penb.store.paths import checkpoint_path, checkpoints  # noqa: F401
from penb.trainer import Diverged, Run, Trainer, build_model, finish, load_model  # noqa: F401
