#!/usr/bin/env bash
# One lent GPU call (issues 48 and 50), every step bounded so that one that fails or runs long leaves the others:
#   1. probe: a tiny compiled stacked batch (on CUDA its update captured as a CUDA graph); where it fails, everything
#      after it trains eager (PENB_COMPILE=never) and says so;
#   2. the batch benchmark (benchmarks/batched.py, issue 48's table): eager stacked rows for the quick GRU, the quick
#      LSTM, hidden 256 and the paper's size at K = 1 .. 1024, then the compiled quick GRU and LSTM at K = 1024;
#   3. the device run (python -m penb device-run, issue 50): the tree checked against its commit, the slice sized on
#      this device, the CUDA tests, in whatever is left of BUDGET seconds.
# There:  OUT=$OUT bash scripts/device_call.sh            (carry .device: make device-pack here first, on a clean commit)
# Here:   DEV=cpu PRESET=smoke SIZES=tiny OUT=/tmp/out bash scripts/device_call.sh     (the rehearsal, about 3 minutes)
set -u
OUT=${OUT:-device_out}
PY=${PY:-python3}
DEV=${DEV:-cuda}
BUDGET=${BUDGET:-560}           # seconds for all three steps (a device command is cut at 600 s)
PRESET=${PRESET:-slice}
SIZES=${SIZES:-}                # the rehearsal's one size instead of the table's four
export PYTHONUNBUFFERED=1
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

echo "== 2. the batch benchmark ($(elapsed) s in)"
bench() {   # seconds sizes k compile
    timeout "$1" $PY benchmarks/batched.py --device "$DEV" --sizes "$2" --k "$3" --compile "$4" --steps 20 --warmup 3 \
        --repeats 2 2>&1 | tee -a "$OUT/bench.txt"
}
if [ -n "$SIZES" ]; then
    bench 60 "$SIZES" 1,4,16 never
else
    for s in quick quick_lstm h256; do bench 45 "$s" 1,16,64,256,1024 never; done
    bench 30 paper 1,16,64 never
    [ "${PENB_COMPILE:-auto}" = never ] || bench 150 quick,quick_lstm 1,1024 always
fi

left=$(( BUDGET - $(elapsed) ))
echo "== 3. the device run: ${left} s left"
$PY -m penb device-run --out "$OUT/run" --budget "$left" --device "$DEV" --preset "$PRESET"
rc=$?
echo "device call: $(elapsed) s in all, device-run exit $rc"
exit $rc
