"""The tasks of the main paper (Morita, Sec. 3.1, 4.2, App. A-B), in a registry keyed by string.

Every task lays a sequence out over ``T`` time steps covering the input and the output phase:

* ``inputs``: ``LongTensor[B, T]``; a step with no input token carries the command token ``V``
  (the paper's time-invariant learnable "command" vector is row ``V`` of the embedding);
* ``targets``: ``LongTensor[B, T]``; a step with no target carries ``IGNORE = -100``.

Keys (``V`` = vocabulary size, ``L`` = input length)::

    reverse           x_1..x_L, V..V            -> .., x_L..x_1                  (Sec. 3.1, T = 2L)
    sort              x_1..x_L, V..V            -> .., sorted ascending          (App. A.2, T = 2L)
    reverse_add       x_1..x_L, y_1..y_L        -> .., (x_{L+1-i} + y_i) mod V   (App. A.1, T = 2L)
    predecessor       x_1..x_L (distinct), x_q  -> .., x_{q-1}, 2 <= q <= L      (App. A.3, T = L+1)
    reverse_variable  lengths l ~ U{min_length..L}; reverse of the first l      (App. B, T = 2L)
    lm                next-token prediction on tokenised WikiText paragraphs (App. E; ``tasks.lm``)
    dual_frequency    reverse; token FREQUENT (first V/2) or RARE (last V/2), rare with prob. ``rarity``
                      per position; the test set is the paper's target x disturbants grid (Sec. 4.2)

Held-out sequences are drawn first (``held_out``), are pairwise distinct, and are never produced by
``sample`` afterwards: rows are compared by a 62-bit polynomial hash, and a hash match rejects the row
(a false match, probability ~1e-15, only rejects an unseen sequence; it never admits a test one).
All sampling is vectorised and runs on the device of the ``torch.Generator`` passed in.

Modules: ``task`` (Batch, Task, row hash), ``ordering`` (reverse, sort, reverse_add, predecessor,
reverse_variable), ``frequency`` (dual_frequency) and ``lm`` (language modelling on WikiText paragraphs).
"""
from __future__ import annotations

from penb.tasks.task import IGNORE, Batch, Task, row_keys
from penb.tasks.frequency import DualFrequency
from penb.tasks.lm import LMTask
from penb.tasks.ordering import Predecessor, Reverse, ReverseAdd, ReverseVariable, Sort

__all__ = ["IGNORE", "Batch", "Task", "row_keys", "TASKS", "make_task"]

TASKS = {c.name: c for c in (Reverse, Sort, ReverseAdd, Predecessor, ReverseVariable, DualFrequency, LMTask)}


def make_task(name: str, vocab_size: int, length: int, **options) -> Task:
    """The task registered as ``name``; ``ValueError`` for an unknown name or a bad option."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join(TASKS)}")
    return TASKS[name](vocab_size, length, **options)
