"""What a sweep would cost on a GPU: GPU-hours estimated from step times measured at paper size on one H100."""
from __future__ import annotations

# Step times of one update at paper size (h512, batch 512, L64) on one H100 in fp32, as measured
# (shared/anchors/gpu-h100-measurements.md): the GRU at V 256, the LSTM and S4D at V 16,384.
PAPER_STEP_S = {"gru": 0.0140, "lstm": 0.0524, "s4d": 0.0541, "transformer": 0.0524}
ANCHOR_VOCAB = {"gru": 256, "lstm": 16384, "s4d": 16384, "transformer": 16384}
# What the readout and softmax over V add to an update, split off those two measurements: a GRU's gates
# cost 3/4 of an LSTM's, so with R the readout's time at V 16,384 (linear in V),
# 4/3 (14.0 - R/64) + R = 52.4 ms gives R = 34.5 ms (the LSTM's recurrence: 18.0 ms). An estimate, not
# a measurement; the step at another V is the anchor's plus R x (V - anchor V) / 16,384.
READOUT_S = 0.03445


def step_seconds(config) -> float:
    """Estimated seconds of one fp32 update of a run config on one H100: the anchor's time of its core,
    moved to its vocabulary (:data:`READOUT_S`) and scaled by B x L x h^2 from the paper's size."""
    core = config.get("core", "lstm")
    step = PAPER_STEP_S.get(core, 0.05)
    if config.get("vocab_size") is not None:
        step += READOUT_S * (config["vocab_size"] - ANCHOR_VOCAB.get(core, 16384)) / 16384
    scale = config.get("batch_size", 512) * config.get("length", 64) * config.get("hidden", 512) ** 2 / (
        512 * 64 * 512 ** 2)
    return step * scale


def flat(items) -> list:
    """The run configs of a sweep's executor items: a config, or a tuple of configs (the budgets of one trunk,
    ``penb.store.runs.groups``)."""
    return [c for i in items for c in (i if isinstance(i, tuple) else (i,))]


def gpu_hours(configs) -> float:
    """A rough GPU-hour estimate of run configs (dicts with core, steps, batch_size, length, hidden and,
    optionally, vocab_size), one run at a time (:func:`step_seconds`); trunk groups count each budget in full,
    an upper bound of what they train."""
    total = 0.0
    for c in flat(configs):
        if not isinstance(c, dict) or "steps" not in c:
            continue
        total += c["steps"] * step_seconds(c)
    return total / 3600
