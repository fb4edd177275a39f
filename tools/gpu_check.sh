#!/usr/bin/env bash
# The judge's GPU checks, in named parts, for one device call or several (a whole level resumes where the last call
# stopped):
#   BUDGET_S=560 bash tools/gpu_check.sh env suite verify l2 l1
# Inputs under devdata/ (carry it): KernelBench/level{1,2,3} (a copy of ../shared/KernelBench), old/ (`git archive`
# of an earlier commit, for the ab_old part) and out/ (what earlier calls wrote: unpack each call's $OUT/runs.tgz into
# devdata/ before the next). Level folders are named by card (out/l2_H100), so speeds of two cards never mix.
# Parts: env, suite (the GPU tests of the judge: hacks, faults and good answers with timing), verify (64 candidates
# through the pool), l1 / l2 / l3 (the teacher over a whole level), ab_new / ab_old (AB_N level-2 tasks from scratch
# with this judge, then the old one, on the same card and workers: the judging-time ratio), ipc (tools/ipc_probe.py).
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
START=$(date +%s)
BUDGET_S=${BUDGET_S:-560}
OUTDIR=devdata/out
mkdir -p "$OUTDIR" "${OUT:-/tmp/out}"
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -o 'H[0-9]\{3\}' || echo cpu)
KB=devdata/KernelBench
WORKERS=${WORKERS:-6}

left() { echo $(( BUDGET_S - ($(date +%s) - START) )); }
section() { echo "=== $1 ($(date +%H:%M:%S), $(left) s left)"; }
pack() { tar czf "${OUT:-/tmp/out}/runs.tgz" -C devdata out; }

level() {  # $1 level, $2 output name, the rest: more eval.py flags
  local L=$1 name=$2
  shift 2
  local t=$(( $(left) - 20 ))
  [ "$t" -gt 60 ] || { echo "level $L: no time left"; return; }
  section "level$L -> $name"
  timeout "$t" $PY eval.py --tasks "$KB/level$L" --policy teacher --baseline eager --device cuda \
    --workers "$WORKERS" --out "$OUTDIR/$name" --baseline-cache "$OUTDIR/baselines_$CARD.json" \
    --stop-after-s $(( t - ${GRACE_S:-90} )) "$@" >> "$OUTDIR/$name.log" 2>&1
  echo "rc $?" >> "$OUTDIR/$name.log"
  grep -v "it/s\|s/it" "$OUTDIR/$name.log" | tail -6 | cut -c1-600
  pack
}

part_env() {
  section env
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee "$OUTDIR/env_$CARD.txt"
  $PY -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUTDIR/env_$CARD.txt"
}

part_suite() {
  section suite
  timeout $(( $(left) < ${SUITE_S:-240} ? $(left) - 10 : ${SUITE_S:-240} )) $PY -m pytest -m gpu -p no:cacheprovider -q -rf --tb=short --durations=5 tests/test_reward.py \
    tests/test_judge_isolation.py tests/test_zygote.py > "$OUTDIR/suite_$CARD.txt" 2>&1
  echo "pytest rc $?" >> "$OUTDIR/suite_$CARD.txt"
  grep -E "^FAILED|^ERROR|passed|failed" "$OUTDIR/suite_$CARD.txt" | tail -30 | cut -c1-300
  pack
}

part_verify() {
  section verify
  timeout 240 $PY bench.py verify --device cuda --n 64 --workers "${V_WORKERS:-8}" --no-fresh \
    > "$OUTDIR/verify_$CARD.txt" 2>&1
  echo "rc $?" >> "$OUTDIR/verify_$CARD.txt"
  tail -8 "$OUTDIR/verify_$CARD.txt" | cut -c1-400
  pack
}

L1_FLAGS=${L1_FLAGS:---teacher-plans triton-bf16x3,triton-tf32 --teacher-fallback triton}
L2_FLAGS=${L2_FLAGS:---teacher-plans hybrid,hybrid-cl,hybrid-fp16,triton-bf16x3}
part_l1() { level 1 "l1_$CARD" $L1_FLAGS; }
part_l2() { level 2 "l2_$CARD" $L2_FLAGS; }
part_l3() { level 3 "l3_$CARD" ${L3_FLAGS:-}; }

ab() {  # $1 name, $2 folder of the code; the first AB_N level-2 tasks judged from scratch, timed end to end
  local name=$1 dir=$2 n=${AB_N:-16}
  section "$name ($dir)"
  rm -rf "/tmp/ab_$name" "/tmp/kb_ab"
  mkdir -p /tmp/kb_ab && ls "$KB/level2"/*.py | sort -V | head -"$n" | xargs -I{} cp {} /tmp/kb_ab/
  local t0=$(date +%s)
  (cd "$dir" && XDG_CACHE_HOME=/tmp/ab_cache_$name timeout $(( $(left) - 10 )) $PY eval.py --tasks /tmp/kb_ab \
    --policy teacher --level 2 --baseline eager --device cuda --workers "$WORKERS" --out "/tmp/ab_$name" \
    --teacher-plans hybrid) > "$OUTDIR/ab_${name}_$CARD.log" 2>&1
  echo "rc $? wall_s $(( $(date +%s) - t0 ))" | tee -a "$OUTDIR/ab_${name}_$CARD.log"
  rm -rf "$OUTDIR/ab_${name}_$CARD" && cp -r "/tmp/ab_$name" "$OUTDIR/ab_${name}_$CARD"  # per-verdict timings
  tail -3 "$OUTDIR/ab_${name}_$CARD.log" | cut -c1-400
  pack
}
part_ab_new() { ab new "$PWD"; }
part_ab_old() { ab old devdata/old; }
part_ipc() {  # how a 2 GB output could reach the worker: host memory (now), page-locked, CUDA IPC
  section ipc
  timeout 120 $PY tools/ipc_probe.py --gb 2 --rounds 3 > "$OUTDIR/ipc_$CARD.txt" 2>&1
  echo "rc $?" >> "$OUTDIR/ipc_$CARD.txt"
  tail -4 "$OUTDIR/ipc_$CARD.txt" | cut -c1-400
  pack
}

for p in "$@"; do
  if [ "$(left)" -lt 30 ]; then echo "=== stop: budget spent before $p"; break; fi
  "part_$p"
done
pack
echo "=== done ($(left) s left)"
