#!/usr/bin/env bash
# One lent GPU call (issues 48, 50 and 60), every step under a hard timeout so that one that fails or runs long
# leaves the others:
#   0. the tree checked against its commit (python -m penb device-run --verify-only), before anything compiles;
#   1. probe: a tiny compiled stacked batch (on CUDA its update captured as a CUDA graph); where it fails, everything
#      after it trains eager (PENB_COMPILE=never) and says so;
#   2. the device run (python -m penb device-run): the slice sized on this device (never refused: where the call is
#      short it trains less and device_run.json says why), continuing FROM, then the CUDA tests, in BUDGET less
#      BENCH_S seconds;
#   3. the batch benchmark (benchmarks/batched.py, issue 48's table) in the BENCH_S seconds left, ROWS to choose.
# BUDGET: the seconds the call may use, penb.call.limits.CALL_BUDGET_S by default; a caller whose machine started
# slowly passes less. FROM: an earlier call's folder (carried in under .device/), whose runs and trunk parts go into
# the store first, so that this call trains only what is left.
# There:  OUT=$OUT FROM=.device/from bash scripts/device_call.sh      (carry .device: make device-pack here first)
# Here:   DEV=cpu PRESET=smoke ROWS=tiny:1,4,16:never OUT=/tmp/out bash scripts/device_call.sh   (the rehearsal)
# Dry run here (no device): python -m penb device-run --out /tmp/x --dry-run
set -u
OUT=${OUT:-device_out}
PY=${PY:-python3}
DEV=${DEV:-cuda}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"        # the device's python has no penb installed
BUDGET=${BUDGET:-$($PY -c 'from penb.call.limits import CALL_BUDGET_S as b; print(int(b))')}  # all steps, seconds
BENCH_S=${BENCH_S:-0}           # kept from the device run for the benchmark
PRESET=${PRESET:-slice}
CHAPTERS=${CHAPTERS-key_findings}       # empty: rows only, no device run
ROWS=${ROWS:-}                  # size:K list:compile, space-separated, each row set its own process
FROM=${FROM:-}                  # an earlier call's folder: continued, not retrained
NO_TESTS=${NO_TESTS:-}          # set: skip the CUDA tests (the CPU rehearsal)
PARAMS=${PARAMS:-}              # chapter parameters for the device run, e.g. "-p cores ('gru',)" (no spaces in values)
PROBE_COMPILE=${PROBE_COMPILE:-always}  # the rehearsal probes eager: the CPU's compile is not what it checks
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

echo "== 0. the tree"
if [ -n "$CHAPTERS" ] && ! timeout 60 $PY -m penb device-run --out "$OUT/run" --verify-only; then
    echo "the tree is not its commit (or has no .device pack): nothing trains"
    exit 2
fi

echo "== 1. probe: a compiled stacked batch on $DEV"
if timeout 100 $PY benchmarks/batched.py --device "$DEV" --sizes tiny --k 1,4 --compile "$PROBE_COMPILE" \
        --steps 5 --warmup 1 --repeats 1 > "${TMPDIR:-/tmp}/probe.txt" 2>&1; then     # printed, not handed back: $OUT/run has the files
    cat "${TMPDIR:-/tmp}/probe.txt"
else
    tail -n 8 "${TMPDIR:-/tmp}/probe.txt"
    echo "the compiled update failed or ran past 100 s on $DEV: every batch below trains eager (PENB_COMPILE=never)"
    export PENB_COMPILE=never
fi

left=$(( BUDGET - BENCH_S - $(elapsed) ))
rc=0
if [ -n "$CHAPTERS" ]; then
    echo "== 2. the device run: ${left} s"
    timeout $(( left + 20 )) $PY -m penb device-run --out "$OUT/run" --budget "$left" --device "$DEV" \
        --preset "$PRESET" --chapters "$CHAPTERS" ${FROM:+--from "$FROM"} ${NO_TESTS:+--no-tests} $PARAMS
    rc=$?
    [ "$rc" = 124 ] && echo "the device run ran past its $left s and was cut: $OUT/run keeps what finished"
fi

[ -n "$ROWS" ] && echo "== 3. the batch benchmark ($(elapsed) s in)"
for row in $ROWS; do
    IFS=: read -r size ks how <<< "$row"
    [ "$how" = always ] && [ "${PENB_COMPILE:-auto}" = never ] && how=never
    left=$(( BUDGET - $(elapsed) ))
    [ "$left" -lt 20 ] && { echo "no time left for $row"; continue; }
    timeout "$left" $PY benchmarks/batched.py --device "$DEV" --sizes "$size" --k "$ks" --compile "$how" --steps 20 \
        --warmup 3 --repeats 2 2>&1 | grep -v -i "warn\|softmax\|split the\|important use\|^$"
done
echo "device call: $(elapsed) s in all, device-run exit $rc"
exit $rc
