"""What the RNN chapters (key findings, frequency, gradient stability) share: per-model settings, training checks.

A chapter's config holds common settings (``hidden``, ``batch_size``, ``steps``, ``lr``, ``warmup``) and a
``per_core`` dict that overrides some of them per model, e.g. ``{"lstm": {"batch_size": 128}}``: the CPU
presets give each model the regime its search found, while the paper preset uses one setting for all.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from penb import encodings, runs
from penb.executors.cost import step_seconds
from penb.names import MODEL_NAMES, RNN_CORES
from penb.presets import require, require_ints, require_names
from penb.run_config import decay_start
from penb.trunks import SHORTER

KEYS = ("hidden", "batch_size", "steps", "lr", "warmup", "amp")     # what ``per_core`` may override

# Where a chapter's runs execute (``penb.executors.for_config``), defined once and merged into the PAPER
# preset of every chapter that trains through ``penb.sweeps.chapter_sweep`` (key findings, frequency,
# gradient stability, appendices A-D, language modelling), so every preset inherits them. None of these
# keys enters a run's config: they decide where runs train, never what a run is (run keys do not move).
EXECUTION = dict(
    executor="auto",        # auto: with more than one run to train, batched (a figure's GRU/LSTM runs
                            # of one shape as one batch where it pays) over `workers` processes, else
                            # in this process; local: in this process; process: `workers` processes,
                            # one run each; submitit: one job per run
    cluster=None,           # submitit: None = Slurm where present, else local subprocesses (all jobs
                            # at once: for tests and one machine); "slurm" or "local" to force one
    partition=None,         # submitit on Slurm: the partition (None: the cluster's default)
    gpus_per_job=1,         # submitit: GPUs per job, one run per job; 0 for CPU jobs (on the local
                            # cluster 0 hides the GPUs from the job)
    time_limit_min=240.0,   # submitit: minutes per job; a job that reaches it is requeued and resumes
                            # from its last checkpoint (a 300k-update fp32 LSTM run, ~4.4 h on an
                            # H100, is requeued once)
    array_parallelism=32,   # submitit on Slurm: jobs of the array running at once
    batch_runs=64,          # batched (and auto on the CPU): at most this many runs of one shape in one
                            # batch (penb.executors.batched; the stacked kernel does each run's arithmetic
                            # once, so a figure's runs fit: key findings' quick GRU cells are 18)
)
EXECUTORS = ("auto", "local", "process", "submitit", "batched")  # values of ``executor``; batched: the runs
                            # of one shape K at a time as one batch in this process (penb.trainer), the others alone

# How a chapter's budgets are trained for grading protocol 4 (``penb.claims.doubling``), merged into the PAPER
# preset of the chapters that grade with it. ``schedule`` enters every run's config; ``doubling`` decides which runs
# the chapter makes.
BUDGETS = dict(
    schedule="cosine",      # the paper's warm-up + cosine to 0. "wsd": warm-up / stable / decay over the last
                            # 20%, so that the budgets N/2 and N share one trunk (penb.trunks): ~1.1 N updates
    doubling=True,          # also train every run at half its updates (the same seeds): the doubling test of
                            # protocol 4, without which no claim about trained models is decided
    earlier=0,              # 1: the budget N/4 also trained (at most 1: penb.trunks.SHORTER), a WSD branch of the same
                            # trunk: the doubling before the last, which protocols 6-7's horizon reads where a chapter's
                            # grading passes it (key findings; issue 58: its quick and deep presets train it)
)
SCHEDULES = ("cosine", "wsd")
CLUSTERS = (None, "slurm", "local")                            # values of ``cluster``


def settings(cfg, core: str) -> dict:
    """The training settings of ``core``: the common ones with ``per_core[core]`` applied."""
    base = dict(hidden=cfg.hidden, batch_size=cfg.batch_size, steps=cfg.steps, lr=cfg.lr, warmup=cfg.warmup,
                amp=cfg.get("amp", "none"), schedule=cfg.get("schedule", "cosine"))
    return {**base, **cfg.per_core.get(core, {})}


def budgets(cfg, model: str) -> tuple[int, int]:
    """(N/2, N): the updates of ``model``'s runs at half and at its full budget (protocol 4's doubling test)."""
    n = settings(cfg, model)["steps"]
    return n // 2, n


def next_cost(frame, cfg, model: str) -> dict:
    """What the next doubling (2N updates) of ``model``'s runs in ``frame`` (rows with ``wall_s`` and ``vocab``)
    would cost: {"updates", "runs", "cpu_min" (one core, scaled from these runs' own wall times), "gpu_min" (an H100,
    :func:`penb.executors.cost.step_seconds`)}. With WSD the 2N run extends the trunk from D(N): 2N - 0.8N = 1.2N
    updates per run; with the cosine it is a fresh run of 2N."""
    s = settings(cfg, model)
    more = 2 * s["steps"] - (int(0.8 * s["steps"]) if s["schedule"] == "wsd" else 0)
    rows = frame[frame["model"] == model] if len(frame) else frame
    cpu = float(rows["wall_s"].sum()) * more / s["steps"] / 60 if len(rows) and "wall_s" in rows else None
    gpu = sum(step_seconds({**s, "core": model, "length": cfg.length, "vocab_size": int(v)}) * more
              for v in rows.get("vocab", [])) / 60
    return {"updates": 2 * s["steps"], "runs": int(len(rows)), "cpu_min": None if cpu is None else round(cpu, 1),
            "gpu_min": round(gpu, 2)}


def half_budgets(configs: list[dict], cfg) -> list[dict]:
    """The runs of protocol 4's doubling test: each of ``configs`` at half its updates ([] unless
    ``cfg.doubling``)."""
    return [{**c, "steps": c["steps"] // 2} for c in configs] if cfg.get("doubling") else []


def earlier_budgets(configs: list[dict], cfg) -> list[dict]:
    """The budgets below N/2 of ``configs`` (``cfg.earlier`` of them: N/4, N/8, ...), [] unless ``cfg.doubling``."""
    if not cfg.get("doubling"):
        return []
    return [{**c, "steps": c["steps"] >> k} for k in range(2, 2 + cfg.get("earlier", 0)) for c in configs]


def all_budgets(configs: list[dict], cfg) -> list[dict]:
    """What a chapter trains for ``configs`` (each at its budget N): the runs themselves, their half budgets and
    the earlier budgets (:func:`half_budgets`, :func:`earlier_budgets`)."""
    return configs + half_budgets(configs, cfg) + earlier_budgets(configs, cfg)


def budget_curve(frame, cfg, metric: str = "token_accuracy"):
    """Exploratory (never graded): ``metric`` averaged over seeds at every budget a preset trains (N/2^(1+earlier),
    ..., N/2, N) for each model, vocabulary and encoding of ``frame`` (a chapter's full-budget runs with a ``path``
    each), read from the run store beside them, as a table with one column per budget; None where the preset
    trains no budget below N/2 (``cfg.earlier``) or the frame names no stored runs."""
    if not cfg.get("doubling") or not cfg.get("earlier") or not len(frame) or "path" not in frame:
        return None
    rows = []
    for p in dict.fromkeys(frame["path"]):
        c = runs.RunResult.from_dir(Path(p)).config
        for k in range(2 + cfg.earlier):
            try:
                r = runs.load({**c, "steps": c["steps"] >> k}, Path(p).parent)
            except FileNotFoundError:
                continue
            if not r.diverged:
                rows.append(dict(model=MODEL_NAMES[c["core"]], vocab=c["vocab_size"], encoding=c["encoding"],
                                 updates=c["steps"] >> k, value=r.metrics.get(metric)))
    if not rows:
        return None
    table = pd.DataFrame(rows).pivot_table(index=["model", "vocab", "encoding"], columns="updates", values="value",
                                           aggfunc="mean")
    return table.rename(columns=lambda n: f"{n:,} updates").round(3)


def budget_view(frame, cfg, metric: str = "token_accuracy"):
    """What a chapter page shows of :func:`budget_curve`: the table, or one line (Markdown) saying that the preset
    trains no budget below N/2."""
    curve = budget_curve(frame, cfg, metric)
    if curve is not None:
        return curve
    from IPython.display import Markdown  # deferred: IPython is for display only (the device image has none)

    return Markdown(f"Preset `{cfg.preset}` trains no budget below N/2 (`earlier={cfg.get('earlier', 0)}`).")


def load_half(configs: list[dict], cfg, store=None) -> list | None:
    """The finished half-budget runs of ``configs`` (:func:`half_budgets`) from the run store, or None when the
    chapter trains none or one of them is missing (grading then reads the claims about trained models as
    undecided)."""
    return _load(half_budgets(configs, cfg), store)


def load_quarter(configs: list[dict], cfg, store=None) -> list | None:
    """The finished runs of ``configs`` at a quarter of their updates (the first of :func:`earlier_budgets`:
    protocol 6's horizon reads the doubling N/4 -> N/2), or None when the preset trains none or one is missing."""
    return _load(earlier_budgets(configs, cfg)[:len(configs)], store)


def _load(shorter: list[dict], store=None) -> list | None:
    try:
        return [runs.load(c, store) for c in shorter] if shorter else None
    except FileNotFoundError:
        return None


def half_of(frame, cfg) -> list | None:
    """The finished half-budget runs of the full-budget runs in ``frame`` (a chapter's table with a ``path`` per
    run), in its order, from the run store beside them; None when ``cfg`` trains none (``doubling``), the table
    names no stored runs (a hand-built one), or one is missing (protocol 4's doubling test then reads undecided)."""
    return _shorter_of(frame, cfg, load_half)


def quarter_of(frame, cfg) -> list | None:
    """As :func:`half_of`, the runs at a quarter of the updates (:func:`load_quarter`: None unless ``earlier``)."""
    return _shorter_of(frame, cfg, load_quarter)


def _shorter_of(frame, cfg, loader) -> list | None:
    if not cfg.get("doubling") or not len(frame) or "path" not in frame:
        return None
    try:
        configs = [runs.RunResult.from_dir(Path(p)).config for p in frame["path"]]
    except (OSError, ValueError):
        return None
    return loader(configs, cfg, Path(frame["path"].iloc[0]).parent)


def check_budgets(cfg, cores) -> None:
    """``ValueError`` for an impossible :data:`BUDGETS` setting: an unknown schedule, a non-bool ``doubling``, or
    a half budget too short for its warm-up (the WSD decay must start after it)."""
    require(cfg.get("schedule", "cosine") in SCHEDULES,
            f"unknown schedule {cfg.get('schedule')!r}; valid: {', '.join(SCHEDULES)}")
    require(isinstance(cfg.get("doubling", False), bool),
            f"doubling must be True or False, got {cfg.get('doubling')!r}")
    earlier = cfg.get("earlier", 0)
    require(isinstance(earlier, int) and not isinstance(earlier, bool) and 0 <= earlier <= SHORTER - 1,
            f"earlier must be 0 or {SHORTER - 1} (budgets below N/2: a trunk saves the branch points of N/2 and "
            f"N/4 only, penb.trunks.SHORTER), got {earlier!r}")
    for core in cores:
        s = settings(cfg, core)
        shortest = s["steps"] >> (1 + earlier) if cfg.get("doubling") else s["steps"]
        require(shortest >= 1, f"{core}: {s['steps']} updates have no half budget to double from")
        if s["schedule"] == "wsd" and s["warmup"] <= s["steps"]:      # else cross_check says so
            require(decay_start(shortest, 0.2) >= max(s["warmup"], 1),
                    f"{core}: schedule='wsd' with {shortest} updates decays inside its {s['warmup']}-update warm-up; "
                    f"train longer or shorten the warm-up")


def check_fixed_targets(cfg, n: int, seeds, vocab, rule: str) -> None:
    """``ValueError`` unless ``cfg`` (a fixed-target preset: deep, deep_v2) trains the GRU alone at exactly ``n``
    updates with N/2 and N/4 on a WSD trunk, on ``seeds``, at ``vocab`` or some of its cells (``cfg.gru_vocab``: a
    fixed-target preset may be trained in parts, by cell, issue 65; never a cell outside ``vocab``), in fp32: the
    budgets ``rule`` chose, the same on every host and device."""
    gru = settings(cfg, "gru")
    have, want = (tuple(v) if isinstance(v, (tuple, list)) else (v,) for v in (cfg.gru_vocab, vocab))
    require(gru["steps"] == n and tuple(cfg.seeds) == tuple(seeds) and gru["amp"] == "none"
            and cfg.get("earlier") == 1 and cfg.get("schedule") == "wsd" and tuple(cfg.cores) == ("gru",)
            and len(have) >= 1 and set(have) <= set(want) and len(set(have)) == len(have),
            f"the {cfg.preset} preset's budgets are fixed targets ({rule}): GRU N = {n:,} with N/2 and N/4 "
            f"(earlier=1, WSD), V {vocab} (or some of them), confirmation seeds {tuple(seeds)}, fp32, on every "
            f"host; got N = {gru['steps']:,}, V {cfg.gru_vocab}, seeds {tuple(cfg.seeds)}, amp {gru['amp']!r}, earlier "
            f"{cfg.get('earlier')}. Use preset 'quick' for other budgets")


def check_per_core(cfg) -> None:
    """``ValueError`` unless ``cfg.per_core`` maps model names to possible overrides of :data:`KEYS`."""
    require(isinstance(cfg.per_core, dict) and set(cfg.per_core) <= set(RNN_CORES),
            f"per_core must map gru, lstm or s4d to overrides, got {cfg.per_core!r}")
    for core, over in cfg.per_core.items():
        require(isinstance(over, dict) and set(over) <= set(KEYS),
                f"per_core[{core!r}] may only set {', '.join(KEYS)}; got {over!r}")
        for k, v in over.items():
            if k == "amp":
                require(v in ("none", "bf16"), f"per_core[{core!r}]['amp'] must be 'none' or 'bf16', got {v!r}")
                continue
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0) if k == "lr" else \
                (isinstance(v, int) and not isinstance(v, bool) and v >= (0 if k == "warmup" else 1))
            require(ok, f"per_core[{core!r}][{k!r}] is impossible: {v!r}")


def provenance_extra(cfg) -> dict:
    """Extra fields for ``penb.report.provenance``/``stamp``: L and, when models differ, each one's settings."""
    extra = {"L": cfg.length, **({"schedule": cfg.schedule} if cfg.get("schedule", "cosine") != "cosine" else {}),
             **({"doubling test": "every run also at half its updates"} if cfg.get("doubling") else {})}
    if cfg.per_core:
        extra["per model"] = "; ".join(
            f"{MODEL_NAMES[c]} h{s['hidden']} B{s['batch_size']} {s['steps']} steps lr {s['lr']:g}"
            + (" bf16" if s["amp"] == "bf16" else "")
            for c in cfg.cores for s in [settings(cfg, c)])
    else:
        extra["hidden"] = cfg.hidden
    return extra


def check_training(cfg, ints) -> None:
    """``ValueError`` for an impossible training setting: ``ints`` positive ints, warm-up, lr, betas, seeds,
    cores, encodings, amp and the per-model overrides."""
    require_ints(cfg, ints)
    require(cfg.warmup >= 0 and cfg.lr > 0, f"need warmup >= 0 and lr > 0, got {cfg.warmup}, {cfg.lr}")
    require(len(cfg.betas) == 2 and all(0 <= b < 1 for b in cfg.betas),
            f"betas must be two numbers in [0, 1), got {cfg.betas}")
    require(len(cfg.seeds) >= 1 and len(set(cfg.seeds)) == len(cfg.seeds), f"seeds must be distinct, got {cfg.seeds}")
    require(all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in cfg.seeds),
            f"seeds must be ints >= 0, got {cfg.seeds}")
    require_names("cores", cfg.cores, RNN_CORES)
    require(len(cfg.encodings) >= 1 and len(set(cfg.encodings)) == len(cfg.encodings),
            f"encodings must be distinct, got {cfg.encodings}")
    for e in cfg.encodings:
        require(e in encodings.PAPER_KEYS, f"unknown encoding {e!r}; valid: {', '.join(encodings.PAPER_KEYS)}")
    require(cfg.amp in ("none", "bf16"), f"amp must be 'none' or 'bf16', got {cfg.amp!r}")
    check_per_core(cfg)


def check_execution(cfg) -> None:
    """``ValueError`` for an impossible value of the :data:`EXECUTION` keys, or a combination that cannot
    work: ``cluster="slurm"`` without Slurm's ``sbatch`` here, or submitit jobs without a GPU
    (``gpus_per_job=0``) for runs that ask for CUDA (``device="auto"`` is the jobs' device: the CPU there)."""
    require(cfg.executor in EXECUTORS,
            f"unknown executor {cfg.executor!r}; valid: {', '.join(EXECUTORS)}")
    require(cfg.cluster in CLUSTERS,
            f"unknown cluster {cfg.cluster!r}; valid: None (submitit's choice: Slurm where present, else "
            f"local subprocesses), 'slurm', 'local'")
    require(cfg.partition is None or (isinstance(cfg.partition, str) and cfg.partition.strip() != ""),
            f"partition must be None or a partition name, got {cfg.partition!r}")
    require_ints(cfg, ("gpus_per_job",), minimum=0)
    require_ints(cfg, ("array_parallelism", "batch_runs"), minimum=1)
    t = cfg.time_limit_min
    require(isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0,
            f"time_limit_min must be a positive number of minutes, got {t!r}")
    if cfg.executor != "submitit":
        return
    require(cfg.cluster != "slurm" or shutil.which("sbatch") is not None,
            "cluster='slurm' needs Slurm, but there is no sbatch on this machine's PATH; run from the "
            "cluster's login node, or use cluster=None or 'local'")
    # the jobs' device, not this node's: "auto" becomes "cpu" in jobs without a GPU (penb.runs.settle)
    if cfg.gpus_per_job == 0 and "device" in cfg:
        require(str(cfg.device).split(":")[0] != "cuda",
                f"gpus_per_job=0 gives the submitit jobs no GPU, but device={cfg.device!r} asks for CUDA; give "
                f"each job a GPU, or pass device='auto' or 'cpu'")
