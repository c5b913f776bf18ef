"""A sweep in a process of its own, for the store-safety tests: ``python -m tests.store_worker STORE SEEDS...``.

Runs the tiny configs of :data:`TINY` for the given seeds on one torch thread and prints one JSON line per run
(key and metrics). ``PENB_RUN_LOG`` (set by the test) records which runs this process trained itself.
"""
import json
import sys

TINY = dict(vocab_size=6, length=3, hidden=8, batch_size=8, steps=40, warmup=3, held_out=8,
            checkpoint_every=2, log_every=5, device="cpu", core="lstm")


def configs(seeds):
    return [{**TINY, "seed": int(s)} for s in seeds]


def main(argv):
    if argv[:1] == ["--sleepers"]:                     # a pool of long jobs, for the Ctrl-C test
        from penb.executors import ProcessExecutor

        print("started", flush=True)
        ProcessExecutor(workers=2, threads=1).map(fail_on_three, [1, 2, 4, 5, 6])
        return
    import torch

    torch.set_num_threads(1)
    from penb import runs

    for r in runs.sweep(configs(argv[1:]), store=argv[0], progress=False):
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


def fail_on_three(x):
    """Executor job for the fail-fast test: item 3 fails at once, the others take a long time."""
    import time

    if x == 3:
        raise RuntimeError("boom")
    time.sleep(60)
    return x


if __name__ == "__main__":
    main(sys.argv[1:])
