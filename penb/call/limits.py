"""The limits of one device call (issue 60), defined here once: the slice, the device run, the archive's parts and
``scripts/device_call.sh`` read them (``tests/test_call_limits.py`` checks that no other module restates one).

The device tool cuts a command at 600 s (its machine's start counted), hands back at most 8 files of at most 16 MiB
each, and carries at most 64 MiB of ignored paths into a call. What a call hands back is what the next call carries
in (its ``FROM``), so the folder as a whole stays within the carry.
"""
from __future__ import annotations

COMMAND_S = 600                 # the device tool's limit on one command, its start counted
CALL_BUDGET_S = 560.0           # what a call plans for: the command less the machine's hand-back (a slow start:
                                # the caller passes less through the environment, BUDGET)
MAX_MINUTES = CALL_BUDGET_S / 60  # the most minutes a slice may be given
OVERHEAD_S = 60.0               # start, CUDA set-up, evaluation and collection: an allowance (each slice's manifest
                                # checks it against its own spent minutes)
TEST_RESERVE_S = 60.0           # kept from the slice for the CUDA tests
MAX_FILES = 8                   # a call hands back at most 8 files ...
FILE_BYTES = 16 * 2 ** 20       # ... of at most 16 MiB each ...
PART_BYTES = 15 * 2 ** 20       # ... so a part (predictions, trunks) holds at most 15 MiB, with room for tar headers
CARRY_BYTES = 64 * 2 ** 20      # ... and the next call carries at most 64 MiB in: the folder as a whole
PREDICTION_BYTES = 100_000      # one run's predictions.npz at L 16 (measured: 26-92 kB), per 16 steps
