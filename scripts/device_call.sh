#!/usr/bin/env bash
# One lent GPU call (issues 48 and 50), every step bounded so that one that fails or runs long leaves the others:
#   1. probe: a tiny compiled stacked batch (on CUDA its update captured as a CUDA graph); where it fails, everything
#      after it trains eager (PENB_COMPILE=never) and says so;
#   2. the device run (python -m penb device-run, issue 50): the tree checked against its commit, the slice sized on
#      this device, the CUDA tests, in BUDGET less BENCH_S seconds;
#   3. the batch benchmark (benchmarks/batched.py, issue 48's table) in the BENCH_S seconds left, ROWS to choose. By
#      default none: the H200 and H100 calls of 2026-11-27 measured the table (benchmarks/results/), and the slice
#      needs the whole call (on the H100 key findings' slice at N x 2 needs about 6.5 of its minutes).
# There:  OUT=$OUT bash scripts/device_call.sh            (carry .device: make device-pack here first, on a clean commit)
# Here:   DEV=cpu PRESET=smoke ROWS=tiny:1,4,16:never OUT=/tmp/out bash scripts/device_call.sh   (the rehearsal)
# Rows only (no device run): CHAPTERS= BENCH_S=500 ROWS="paper_b64:1,8,16,64:always paper_lstm_b64:1,8,16:always"
set -u
OUT=${OUT:-device_out}
PY=${PY:-python3}
DEV=${DEV:-cuda}
BUDGET=${BUDGET:-560}           # seconds for all three steps (a device command is cut at 600 s)
BENCH_S=${BENCH_S:-0}           # kept from the device run for the benchmark
PRESET=${PRESET:-slice}
CHAPTERS=${CHAPTERS-key_findings}       # empty: rows only, no device run
ROWS=${ROWS:-}                  # size:K list:compile, space-separated, each row set its own process
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"        # the device's python has no penb installed
mkdir -p "$OUT"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

echo "== 1. probe: a compiled stacked batch on $DEV"
if timeout 100 $PY benchmarks/batched.py --device "$DEV" --sizes tiny --k 1,4 --compile always --steps 5 --warmup 1 \
        --repeats 1 > "$OUT/probe.txt" 2>&1; then
    cat "$OUT/probe.txt"
else
    tail -n 8 "$OUT/probe.txt"
    echo "the compiled update failed or ran past 100 s on $DEV: every batch below trains eager (PENB_COMPILE=never)"
    export PENB_COMPILE=never
fi

left=$(( BUDGET - BENCH_S - $(elapsed) ))
rc=0
if [ -n "$CHAPTERS" ]; then
    echo "== 2. the device run: ${left} s"
    $PY -m penb device-run --out "$OUT/run" --budget "$left" --device "$DEV" --preset "$PRESET" --chapters "$CHAPTERS"
    rc=$?
fi

[ -n "$ROWS" ] && echo "== 3. the batch benchmark ($(elapsed) s in)"
for row in $ROWS; do
    IFS=: read -r size ks how <<< "$row"
    [ "$how" = always ] && [ "${PENB_COMPILE:-auto}" = never ] && how=never
    left=$(( BUDGET - $(elapsed) ))
    [ "$left" -lt 20 ] && { echo "no time left for $row"; continue; }
    timeout "$left" $PY benchmarks/batched.py --device "$DEV" --sizes "$size" --k "$ks" --compile "$how" --steps 20 \
        --warmup 3 --repeats 2 2>&1 | grep -v -i "warn\|softmax\|split the\|important use\|^$" | tee -a "$OUT/bench.txt"
done
echo "device call: $(elapsed) s in all, device-run exit $rc"
exit $rc
