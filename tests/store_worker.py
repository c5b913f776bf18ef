"""A sweep in a process of its own, for the store-safety tests: ``python -m tests.store_worker STORE SEEDS...``.

Runs the tiny configs of :data:`TINY` for the given seeds on one torch thread and prints one JSON line per run
(key and metrics). ``PENB_RUN_LOG`` (set by the test) records which runs this process trained itself.

Ctrl-C is this process's own: it sets Python's SIGINT handler first thing, whatever it inherited. A process started
with SIGINT ignored (``nohup make test &``, cron, some CI runners) passes that on to its children, and a sweep that
ignores the test's SIGINT never stops.
"""
import json
import multiprocessing
import signal
import sys

TINY = dict(vocab_size=6, length=3, hidden=8, batch_size=8, steps=40, warmup=3, held_out=8,
            checkpoint_every=2, log_every=5, device="cpu", core="lstm")


def configs(seeds):
    return [{**TINY, "seed": int(s)} for s in seeds]


def main(argv):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if argv[:1] == ["--sleepers"]:                     # a pool of long jobs, for the Ctrl-C tests
        from functools import partial

        from penb.executors import ProcessExecutor

        print("started", flush=True)
        ProcessExecutor(workers=2, threads=1).map(partial(wait_for, argv[1]), [1, 2, 4, 5, 6])
        return
    import torch

    torch.set_num_threads(1)
    from penb import runs
    from penb import sweeps

    for r in sweeps.sweep(configs(argv[1:]), store=argv[0], progress=False):
        print(json.dumps({"key": r.key, "metrics": r.metrics}), flush=True)


def poison_at(step):
    """A training callback that makes the model's weights NaN after update ``step``."""
    def callback(trainer):
        if trainer.step == step:
            import torch

            with torch.no_grad():
                for p in trainer.model.parameters():
                    p.fill_(float("nan"))
    return callback


def wait_for(folder, x):
    """Executor job of the pool tests: write ``ready-<x>`` into ``folder``, then wait until a file ``go``
    appears there (600 s at most) and write ``done-<x>``. Item 3 fails at once."""
    import os
    import time
    from pathlib import Path

    folder = Path(folder)
    if x == 3:
        raise RuntimeError("boom")
    (folder / f"ready-{x}").write_text(str(os.getpid()))
    deadline = time.monotonic() + 600
    while not (folder / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    (folder / f"done-{x}").write_text(str(os.getpid()))
    return x


def held_job(config, store, marker, hold_from=400):
    """A submitit job of the requeue test: ``penb.sweeps._job``, but on its first attempt (no ``marker`` file yet)
    training stops at update ``hold_from`` (after a checkpoint) and waits there until the job's time limit ends
    it, so the requeue happens on a fast machine as on a slow one. The requeued attempt trains on and finishes."""
    import time
    from pathlib import Path

    from penb import runner, sweeps

    first = not Path(marker).exists()
    original = runner.train_group                  # where every run trains (penb.runner)

    def hold(trainer):
        if first and trainer.step == hold_from:
            Path(marker).write_text("held")
            deadline = time.monotonic() + 600                # a hang guard: the time limit comes long before
            while time.monotonic() < deadline:
                time.sleep(0.1)

    runner.train_group = lambda configs, store, progress=False, **kw: original(configs, store, progress,
                                                                               **{**kw, "callback": hold})
    try:
        return sweeps._job(config, store, False)
    finally:
        runner.train_group = original


class InterruptedProcess(multiprocessing.get_context("spawn").Process):
    """A spawned process for the pool tests: Ctrl-C (a real SIGINT to this process) strikes right after the second
    one has started, before the pool has registered it. ``started`` lists them."""

    started: list = []

    def start(self):
        import os
        import signal

        super().start()
        InterruptedProcess.started.append(self)
        if len(InterruptedProcess.started) == 2:
            os.kill(os.getpid(), signal.SIGINT)


class InterruptedSpawn(type(multiprocessing.get_context("spawn"))):
    """The spawn context, with :class:`InterruptedProcess` as its process."""

    Process = InterruptedProcess


if __name__ == "__main__":
    main(sys.argv[1:])
