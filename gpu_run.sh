#!/usr/bin/env bash
# The H200 measurements behind LOG.md, in named sections so one device call can run several:
#   bash gpu_run.sh noise judgetests search   # logs in /tmp/gpu_work, packed into $OUT/results.tgz after each
# Sections: env train trainab rlab q4 noise judgetests verify teacher2 teacher2x3 teacher5 search search5 sft
# sftprofile rollout profile kernels rl kb kbab kbsearch replay convlayout kbprofile kbkernels fixcheck gsbg gswait
# rllong gsab, in the order given
# (one after another: run at once, 20+ judge workers on 16 cores starved each other, LOG.md). Every section is
# time-boxed with `timeout` so one slow step cannot eat the whole call; each prints the end of its log.
set -u
export PYTHONUNBUFFERED=1
# Logs and outputs go to a work folder; at the end it is packed into one archive under $OUT (the device tool
# brings back at most 8 files a call).
O=/tmp/gpu_work
mkdir -p "$O"
PY=${PY:-python3}

section() { echo "=== $1 ($(date +%H:%M:%S))"; }

run_env() {
  section env
  nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv | tee "$O/env.txt"
  $PY -c "import torch, triton, transformers, peft; print('torch', torch.__version__, 'triton', triton.__version__,
'transformers', transformers.__version__, 'peft', peft.__version__)" | tee -a "$O/env.txt"
}

run_judgetests() {  # issue 3: the hack and fault suite with real kernels and timing
  section judgetests
  timeout 120 $PY -m pytest tests/test_reward.py -m gpu -p no:cacheprovider > "$O/judge_tests.txt" 2>&1; echo "pytest rc $?" >> "$O/judge_tests.txt"
  tail -4 "$O/judge_tests.txt"
}

run_verify() {  # issue 3: pool throughput vs one process per candidate (run it alone: it times wall clock)
  section verify
  # --no-fresh: the pool and one reward.py per candidate only (~160 s; the fresh-worker run adds ~70 s)
  timeout 280 $PY bench.py verify --device cuda --n 64 --workers 8 --cli ${VERIFY_FLAGS---no-fresh} > "$O/verify.txt" 2>&1
  tail -6 "$O/verify.txt"
}

run_noise() {  # issue 3: the same kernels timed twice
  section noise
  timeout 90 $PY bench.py timing-noise --device cuda --n 20 --workers 4 --tasks devdata/paper_l2.jsonl \
    > "$O/noise.txt" 2>&1
  tail -24 "$O/noise.txt"
}

run_teacher2() {  # issues 4 + 8: teacher solutions of 100 paper-size level-2 programs vs eager and torch.compile
  # (session 5: 120 s judged 80 of them, 110 s 48 of the level-5 ones; carry devdata)
  section teacher2
  timeout ${TEACHER_S:-200} $PY eval.py --tasks devdata/paper_l2.jsonl --policy teacher --out "$O/eval_l2" --baseline eager,compile \
    --device cuda --workers 8 > "$O/eval_l2.txt" 2>&1
  tail -2 "$O/eval_l2.txt"
}

run_teacher2x3() {  # issue 4: the same 100 level-2 programs with 3xTF32 dots (compare per task with teacher2)
  section teacher2x3
  timeout 120 $PY eval.py --tasks devdata/paper_l2.jsonl --policy teacher --teacher-dot-precision tf32x3 \
    --out "$O/eval_l2_x3" --device cuda --workers 8 > "$O/eval_l2_x3.txt" 2>&1
  tail -2 "$O/eval_l2_x3.txt"
}

run_teacher5() {  # issue 4: the same on 100 paper-size level-5 programs, vs eager and torch.compile
  section teacher5
  timeout ${TEACHER_S:-200} $PY eval.py --tasks devdata/paper_l5.jsonl --policy teacher --out "$O/eval_l5" --baseline eager,compile --device cuda --workers 8 \
    > "$O/eval_l5.txt" 2>&1
  tail -2 "$O/eval_l5.txt"
}

run_search() {  # issue 7: search with the teacher on level-5 paper programs, and a conv + epilogue task
  section search
  timeout 120 $PY search.py --task devdata/paper_l5.jsonl --limit 3 --policy teacher --max-fragment 5 --beam 2 \
    --autotune --time-budget-s 20 --workers 8 --device cuda --out "$O/search" > "$O/search.txt" 2>&1
  grep -v "it/s\|s/it" "$O/search.txt" | tail -14
  timeout 45 $PY search.py --task tests/kernelbench/2_conv2d_relu_biasadd.py --policy teacher --beam 2 \
    --workers 4 --device cuda --out "$O/search_conv" > "$O/search_conv.txt" 2>&1
  grep -v "it/s\|s/it" "$O/search_conv.txt" | tail -8
}

run_rollout() {  # issue 9
  section rollout
  # session 6's run C: ~250 s (ROLLOUT_FLAGS="--profile-engines compile_fused_splitkv" adds the step profile)
  timeout 420 $PY bench.py rollout --model-config qwen2.5-7b --engines hf,compile_fused_splitkv \
    --lora-engines compile_fused_splitkv --lora-zero-control --greedy-prompts 8 --greedy-tokens 64 \
    ${ROLLOUT_FLAGS-} > "$O/rollout.txt" 2>&1
  tail -12 "$O/rollout.txt"
}

run_profile() {  # issue 9: where the fast engine's decode step goes, every kernel listed (~120 s)
  section profile
  timeout 240 $PY bench.py rollout-profile --model-config qwen2.5-7b --engines ${PROFILE_ENGINES:-compile_fused_splitkv} \
    --top-kernels 60 --attn-splits '' > "$O/profile.txt" 2>&1
  grep -v '^{' "$O/profile.txt" | tail -75
}

run_kernels() {  # issue 9: the decode step's parts alone: sampling, attention sweep, split-K GEMM sweep (~5 min)
  section kernels
  timeout 60 $PY bench.py decode-sample --model-config qwen2.5-7b > "$O/decode_sample.txt" 2>&1
  grep -v '^{' "$O/decode_sample.txt" | tail -3
  timeout 150 $PY bench.py decode-attn --model-config qwen2.5-7b > "$O/decode_attn.txt" 2>&1
  grep -v '^{' "$O/decode_attn.txt" | tail -20
  timeout 330 $PY bench.py decode-gemms --model-config qwen2.5-7b --triton ${GEMMS:-o,down,gate_up} > "$O/decode_gemms.txt" 2>&1
  grep -v '^{' "$O/decode_gemms.txt" | tail -30
}

run_sft() {  # issue 5: one LoRA r=64 SFT step at 16 x 2048 tokens, 7B shape, micro-batch 2 without checkpointing
  section sft
  timeout 130 $PY bench.py sft-step --model-config qwen2.5-7b --micro-batch 2 --no-gradient-checkpointing \
    > "$O/sft_step.txt" 2>&1
  tail -6 "$O/sft_step.txt"
}

run_sftprofile() {  # issue 21: gpu-small's SFT step on the pipeline's pairs, padding mask vs causal-only, log-prob
  # chunks, fused AdamW, then its kernels (bench.py sft-profile, ~90 s); needs $GS/data (gsbg unpacks it)
  section sftprofile
  timeout ${SP_S:-240} $PY bench.py sft-profile --pairs "$GS/data/pairs.jsonl" --device cuda ${SP_FLAGS:-} \
    > "$O/sft_profile.txt" 2>&1
  grep -v '^{' "$O/sft_profile.txt" | grep -v "^\[" | tail -40
}

run_q4() {  # issue 5: the 4-bit (QLoRA) path loads a model and trains steps; needs the bitsandbytes wheel in .whl
  section q4
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl \
    > "$O/q4.txt" 2>&1
  PYTHONPATH=/tmp/site timeout 90 $PY train.py --stage sft --model devdata/tiny-hf --pairs tests/data_sft/pairs.jsonl \
    --load-in-4bit --lora-r 16 --max-steps 3 --eval-every 0 --micro-batch 2 --device cuda --out /tmp/q4 \
    >> "$O/q4.txt" 2>&1
  echo "q4 rc $?"
  tail -6 "$O/q4.txt"
}

GS=${GS:-runs/gs2}
run_train() {  # issues 5 + 6: --preset gpu-small from scratch: SFT, DRPO and GRPO (~75 s each), evals. Make the
  # data first where CPU time is free: python train.py --preset gpu-small --out runs/gs2 --pipeline-data-only
  # (carry runs/gs2). Resumable: a second call with the same command continues where the first was cut.
  section train
  timeout ${TRAIN_S:-575} $PY train.py --preset gpu-small --out "$GS" --resume --device cuda >> "$O/train_gs.txt" 2>&1
  echo "train rc $?"
  grep -v "verify:\|it/s\|s/it" "$O/train_gs.txt" | tail -30
  tar czf "$O/gs.tgz" --exclude=checkpoints --exclude=base_model --exclude=data --exclude='*.safetensors' "$GS"
}

GSB_FLAGS=${GSB_FLAGS---tiny-hidden 768 --tiny-heads 12 --tiny-kv-heads 4 --tiny-intermediate 2048 --tiny-layers 10 --lr 7e-4}
run_trainab() {  # issue 5: two SFT recipes side by side on the one GPU (a 24M-parameter model leaves it mostly idle):
  # A = --preset gpu-small, B = the same data and steps with $GSB_FLAGS; each trains from scratch and evaluates its
  # SFT checkpoint (--pipeline-sft-only). Data made beforehand on a CPU box (carry $GS); B copies it unless ${GS}b/data
  # exists (another data recipe: carry it too, and GSB_FLAGS= for A's model). GSB=0: A alone; GSA_FLAGS: A's extras.
  # Carry $GS only on this call: a carried path replaces the device's copy, checkpoints included (session 5's
  # rlab call that carried it again found no SFT checkpoint). Checkpoints live only on the warm machine.
  section trainab
  [ -d "${GS}b/data" ] || { mkdir -p "${GS}b"; cp -r "$GS/data" "${GS}b/"; }
  timeout ${TRAIN_S:-575} $PY train.py --preset gpu-small --out "$GS" --resume --device cuda --pipeline-sft-only \
    --judge-workers 6 ${GSA_FLAGS:-} >> "$O/train_a.txt" 2>&1 &
  [ "${GSB:-1}" = 0 ] || timeout ${TRAIN_S:-575} $PY train.py --preset gpu-small --out "${GS}b" --resume --device cuda \
    --pipeline-sft-only --judge-workers 6 $GSB_FLAGS >> "$O/train_b.txt" 2>&1 &
  wait
  for f in train_a train_b; do
    [ -f "$O/$f.txt" ] || continue
    echo "--- $f"; grep -E "^===|^derived|^eval 0|judged|pipeline-sft-only|Error|error" "$O/$f.txt" | cut -c1-220 | tail -16
  done
  tar czf "$O/gs.tgz" --exclude=checkpoints --exclude=base_model --exclude=data --exclude='*.safetensors' "$GS" "${GS}b"
}

run_rlab() {  # issue 6: DRPO and GRPO from one SFT checkpoint (RL_INIT, default $GS), same time limit, then the
  # RL checkpoints evaluated on the same held-out tasks as the SFT checkpoint (eval_sft). Run one loss per call
  # (RL_LOSSES=drpo, then RL_LOSSES=grpo): side by side, their judges share the GPU lock and both slow down
  # (29-37 s of verify per step instead of 12-22 s, LOG.md session 4). --rl-eval-every: held-out pass@1 every 5
  # steps drives promotion to level 2 (RL used the SFT's --eval-every of 200 in session 4 and never measured it).
  # RL_SEQ=1 runs the losses one after the other (the evals still run together: timing is under the GPU lock);
  # RL_FLAGS: more train.py flags for both (e.g. "--reward decoupled").
  section rlab
  local R=${RL_INIT:-$GS}
  for loss in ${RL_LOSSES:-drpo grpo}; do
    timeout ${RL_S:-330} $PY train.py --preset gpu-small --stage rl --init "$R/sft" --tasks "$R/data/tasks_rl.jsonl" \
      --out "$R/rl_$loss" --loss $loss --rl-time-limit-s ${RL_LIMIT:-210} --rl-lr ${RL_LR:-3e-4} --judge-workers 6 \
      --rl-eval-every ${RL_EVAL_EVERY:-5} --device cuda ${RL_FLAGS:-} > "$O/rl_$loss.txt" 2>&1 &
    [ "${RL_SEQ:-0}" = 1 ] && wait  # RL_SEQ=1: one loss after the other in one call, then both evals at once
  done
  wait
  for loss in ${RL_LOSSES:-drpo grpo}; do
    timeout 200 $PY eval.py --tasks "$R/data/tasks_eval.jsonl" --policy "$R/rl_$loss" --out "$R/eval_rl_$loss" \
      --device cuda --workers 6 --temperature 0 --max-new-tokens 1536 --gen-batch-size 64 > "$O/eval_rl_$loss.txt" 2>&1 &
  done
  wait
  for loss in ${RL_LOSSES:-drpo grpo}; do
    echo "--- $loss"; grep -E "^step|stopping|promot" "$O/rl_$loss.txt" | cut -c1-260 | tail -40
    tail -2 "$O/eval_rl_$loss.txt" | cut -c1-700
  done
  tar czf "$O/rl.tgz" --exclude=checkpoints --exclude=base_model --exclude=data --exclude='*.safetensors' \
    $(for l in ${RL_LOSSES:-drpo grpo}; do echo "$R/rl_$l $R/eval_rl_$l"; done)
}

run_search5() {  # issue 7: search vs the teacher's single shot on paper-size level-5 programs (whole program first)
  section search5
  timeout ${SEARCH5_S:-240} $PY search.py --task devdata/paper_l5.jsonl --limit ${SEARCH5_N:-3} --policy teacher \
    --max-fragment 5 --beam 2 --time-budget-s 40 --workers 8 --device cuda --out "$O/search5" > "$O/search5.txt" 2>&1
  grep -v "it/s\|s/it" "$O/search5.txt" | tail -10
}

run_rl() {  # issue 6: one RL step, 7B shape, 8 prompts x G=8 x 1024 new tokens
  section rl
  timeout 300 $PY bench.py rl-step --model-config qwen2.5-7b > "$O/rl_step.txt" 2>&1
  tail -8 "$O/rl_step.txt"
}

run_kb() {  # issue 19: the teacher over a whole KernelBench level (KB_LEVEL=1|2), real sizes, vs eager and torch.compile.
  # Carry devdata (a copy of ../shared/KernelBench) and devout (eval dirs and the baseline cache of earlier calls):
  # a call cut short resumes where it stopped, and each task's baselines are measured once across calls.
  # KB_FLAGS adds eval.py flags (e.g. "--teacher-plans triton,triton-tf32x3,triton-tf32" with KB_OUT=devout/eval_kb1_plans);
  # KB_TASKS: a folder of levelN folders holding a subset of a level; KB_GRACE: seconds past KB_S before the kill
  kb_level kb eval_kb ${KB_FLAGS:-}
}

run_kbab() {  # issue 21: SFT, DRPO and GRPO answers to KernelBench level 1 timed again on this card in one call
  # (bench.py kb-ab: only the tasks whose answers differ, ABBA over KBAB_ROUNDS), when their own verdicts came from
  # different machines; KBAB_RESULTS: eval.py --out folders, the base first (default: session 32's three)
  section kbab
  local r1=results/gpu-small-kb-gs31-2026-12-06 r2=results/gpu-small-kb-gs31-rl-2026-12-06
  timeout ${KBAB_S:-400} $PY bench.py kb-ab --results ${KBAB_RESULTS:-$r1/eval_sft_kb1 $r2/eval_rl_kb1 $r2/eval_rl_grpo_kb1} \
    --tasks devdata/KernelBench/level1 --rounds ${KBAB_ROUNDS:-2} --baseline-cache devout/baselines.json \
    --out "$O/kbab" > "$O/kbab.txt" 2>&1
  echo "kb-ab rc $?" >> "$O/kbab.txt"; tail -22 "$O/kbab.txt" | cut -c1-300
}

run_kbsearch() {  # issues 19, 20: eval.py --search over a whole KernelBench level: a row for every task, no abort.
  # KBSEARCH_FLAGS="--teacher-plans all --search-budget 1": each task's whole-program plans, the fastest correct kept;
  # KB_OUT names another --out (runs with other plan sets cannot share one: the plans are an identity flag)
  kb_level kbsearch search_kb --search ${KBSEARCH_FLAGS:-}
}

kb_level() {  # $1: section, $2: log name and default --out (devout/<name><level>), the rest: more eval.py flags
  local label=$1 name=$2 L=${KB_LEVEL:-2}
  shift 2
  local out=${KB_OUT:-devout/$name$L}
  section "$label level$L"
  mkdir -p devout
  # --stop-after-s ends between chunks (a kill by timeout would lose the chunk in flight); timeout is the backstop
  timeout $(( ${KB_S:-500} + ${KB_GRACE:-150} )) $PY eval.py --tasks ${KB_TASKS:-devdata/KernelBench}/level$L --policy teacher \
    --baseline eager,compile --device cuda --workers ${KB_WORKERS:-8} --out $out \
    --baseline-cache devout/baselines.json --stop-after-s ${KB_S:-500} --time-budget-s ${KB_TIME_BUDGET_S:-2} \
    ${KB_CHUNK:+--chunk-size $KB_CHUNK} "$@" >> "$O/$name$L.txt" 2>&1
  echo "eval rc $?"; grep -c '"task_id"' $out/results.jsonl; tail -3 "$O/$name$L.txt"
}

run_replay() {  # issue 21: session 11's SFT answers on KernelBench judged again (eval.py --policy samples:): the
  # judge's pre-flight (on for CUDA) and REPLAY_WORKERS workers against the 862 s level 1 took in that run
  for L in ${REPLAY_LEVELS:-2 1}; do
    section "replay level$L"
    local t0=$(date +%s)
    timeout ${REPLAY_S:-300} $PY eval.py --tasks devdata/KernelBench/level$L \
      --policy samples:results/gpu-small-kb-2026-12-01/eval_sft_kb$L --baseline eager --device cuda \
      --workers ${REPLAY_WORKERS:-4} --out devout/replay_kb$L --baseline-cache devout/baselines.json \
      --time-budget-s 1 --timeout-s 120 >> "$O/replay$L.txt" 2>&1
    echo "replay level$L rc $? in $(( $(date +%s) - t0 )) s"; tail -2 "$O/replay$L.txt" | cut -c1-600
  done
}

run_kbprofile() {  # issue 20: tasks kernel by kernel, eager / compile / teacher plans (bench.py kb-profile); KP_ONLY:
  # task numbers, KP_VARIANTS: plans, KP_FLAGS: more flags (--cudnn-benchmark)
  section kbprofile
  timeout ${KP_S:-300} $PY bench.py kb-profile --tasks devdata/KernelBench/level${KP_LEVEL:-2} --only "${KP_ONLY:-1}" \
    --variants "${KP_VARIANTS:-hybrid-cl,hybrid-fp16}" --out devout/kb_profile.jsonl ${KP_FLAGS:-} >> "$O/kb_profile.txt" 2>&1
  echo "kb-profile rc $?"; grep -v "^kb-profile" "$O/kb_profile.txt" | cut -c1-160 | tail -${KP_TAIL:-120}
}

run_kbkernels() {  # issue 20: the teacher's GEMM and conv kernels in several plans and tiles vs eager, per task
  # (bench.py kb-kernels). KK_SPECS: space-separated LEVEL:TASK_NUMBERS:VARIANTS, e.g. "1:1,3,8:ieee,bf16x3"
  section kbkernels
  local t0=$(date +%s) spec L only v
  for spec in ${KK_SPECS:-}; do
    IFS=: read -r L only v <<< "$spec"
    timeout $(( ${KK_S:-300} - $(date +%s) + t0 )) $PY bench.py kb-kernels --tasks devdata/KernelBench/level$L \
      --only "$only" --variants "$v" --rep-ms ${KK_REP:-50} --out "devout/kb_kernels_l$L.jsonl" \
      >> "$O/kb_kernels.txt" 2>&1
  done
  grep -v '^{' "$O/kb_kernels.txt" | grep -v "^kb-kernels" | cut -c1-250 | tail -60
}

run_convlayout() {  # issue 20: each level-2 task's first convolution, NCHW vs channels-last (bench.py conv-layout)
  section convlayout
  timeout ${CONVLAYOUT_S:-120} $PY bench.py conv-layout --tasks devdata/KernelBench/level${KB_LEVEL:-2} --device cuda \
    --rep-ms 50 --out "$O/conv_layout.jsonl" > "$O/conv_layout.txt" 2>&1
  tail -4 "$O/conv_layout.txt"
}

run_gsbg() {  # issue 21: the whole gpu-small pipeline (SFT, DRPO with the GRPO ablation beside it in a process of
  # its own, every eval, KernelBench levels 1 and 2 for each checkpoint, level 2 with the test-time search for the
  # DRPO one) from a data folder made on a CPU box (carry $GS, devdata, devout): started
  # in its own process session so it outlives this call (the machine stays warm 30 s between calls); gswait
  # sections in the next calls wait for it. The KernelBench baselines come from devout/baselines.json (eval.py's
  # default cache); the teacher's KernelBench row from the session-10 sweep. GS_FLAGS: more train.py flags.
  # GS_TGZ: tar archives (gzip or xz) of $GS, space-separated (carry them instead of $GS when the folder is over the 64 MiB
  # the tree may take): the data, and an SFT run gswait exported on an earlier machine (runs/gsNN_sft.tgz, below),
  # which the pipeline then resumes as finished. GS_AFTER: sections (e.g. "rllong gsab") that run, once the pipeline
  # ends, in the same background job (gswait waits for them too); GS_AB=1 is GS_AFTER=gsab.
  section gsbg
  for t in ${GS_TGZ:-}; do tar xf "$t" && echo "unpacked $t: $(du -sh "$GS" | cut -f1)"; done
  mkdir -p ~/.cache/drtriton-lite && cp devout/baselines.json ~/.cache/drtriton-lite/baselines.json
  local ab="" after=${GS_AFTER:-}
  [ "${GS_AB:-0}" = 1 ] && after="${after:-gsab}"
  [ -n "$after" ] && ab="; OUT= GS=$GS bash gpu_run.sh $after >> /tmp/gs_pipeline.log 2>&1 < /dev/null"
  setsid bash -c "echo \$\$ > /tmp/gs_pipeline.pid; timeout ${GS_S:-1500} $PY train.py --preset gpu-small \
    --out $GS --resume --device cuda --judge-workers 8 --kernelbench devdata/KernelBench \
    --pipeline-kernelbench-teacher 'results/kb-teacher-2026-12-01/level{level}' ${GS_FLAGS:-} \
    > /tmp/gs_pipeline.log 2>&1 < /dev/null $ab" &
  sleep 5; echo "pipeline pid $(cat /tmp/gs_pipeline.pid)"
  # every 5 s while the pipeline runs: GPU memory and the judge's worker processes (session 28 read three judge
  # ooms and the workers' turnover off such a watch); gswait brings it back in results.tgz as judge_watch.txt
  setsid bash -c "while kill -0 \$(cat /tmp/gs_pipeline.pid) 2>/dev/null; do date +%T; \
    nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader; \
    ps -eo pid,etimes,pcpu,rss,args --sort=pid | grep '[r]eward.py' | cut -c1-100; sleep 5; done \
    > $O/judge_watch.txt 2>&1 < /dev/null" &
  run_gswait
}

run_gswait() {  # wait for the pipeline run_gsbg started (GSWAIT_S at most), then bring back its log and outputs
  section gswait
  local end=${GSWAIT_UNTIL:-$(( $(date +%s) + ${GSWAIT_S:-500} ))}
  while kill -0 "$(cat /tmp/gs_pipeline.pid)" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 5; done
  kill -0 "$(cat /tmp/gs_pipeline.pid)" 2>/dev/null && echo "pipeline still running" || echo "pipeline ended"
  cp /tmp/gs_pipeline.log "$O/"
  # the device's baseline cache: the references each eval ran out of memory with (ref_oom) seed the next session's
  cp ~/.cache/drtriton-lite/baselines.json "$O/baselines_device.json" 2>/dev/null
  grep -E "^===|^note|rror|promot" /tmp/gs_pipeline.log | cut -c1-200 | tail -30
  for f in "$GS"/rl_*.log; do  # a stage in a process of its own (--pipeline-parallel-ablation) logs there
    [ -f "$f" ] && echo "--- $f" && grep -E "^===|rror|promot" "$f" | cut -c1-200 | tail -10
  done
  tar czf "$O/gs.tgz" --exclude=checkpoints --exclude=base_model --exclude=data --exclude='*.safetensors' \
    --exclude='*.pt' "$GS"
  # GS_EXPORT=1: once SFT is done, its last checkpoint comes back once, in bf16 without the optimizer
  # (train.export_run), as $OUT/sft_export.tgz.part-aa, -ab, ...: here `cat sft_export.tgz.part-* >
  # runs/gsNN_sft.tgz`, and a later machine given GS_TGZ="runs/gsNN.tgz runs/gsNN_sft.tgz" starts after SFT if this
  # one is lost. Off by default: gpu-small's export with 16-character tokens is 44 MB (session 26), and with the
  # 49 MB of tracked files (session 30) it is over the 64 MiB a call may carry.
  if [ "${GS_EXPORT:-0}" = 1 ] && [ -n "${OUT:-}" ] && [ ! -f /tmp/sft_exported ] \
      && grep -q "^=== sft done" /tmp/gs_pipeline.log; then
    rm -rf /tmp/sft_export \
      && $PY -c "import train; print('exported', train.export_run('$GS/sft', '/tmp/sft_export/$GS/sft'))" \
      && tar czf - -C /tmp/sft_export . | split -b 15m - "$OUT/sft_export.tgz.part-" && touch /tmp/sft_exported
    ls -la "$OUT"/sft_export.tgz.part-* 2>/dev/null
  fi
}

run_fixcheck() {  # session 34's judge fixes on an H100: gs32's SFT answers (correct on the H200) to 19, 20, 26, 33
  # and 34 of level 1 (devdata/kbfix; FIX_TASKS: another folder), one task a chunk so each verdict lands as it
  # comes. Before the fixes 20, 33 and 34 were scored oom on the H100.
  section fixcheck
  timeout ${FIX_S:-200} $PY eval.py --tasks ${FIX_TASKS:-devdata/kbfix} \
    --policy samples:results/gpu-small-kb-gs32-2026-12-06/eval_sft_kb1 --baseline eager --device cuda --workers 4 \
    --chunk-size 1 --timeout-s 120 --time-budget-s 1 --out "$O/fix" --baseline-cache devout/baselines.json \
    > "$O/fix.txt" 2>&1
  echo "eval rc $?"; grep "^task" "$O/fix.txt" | cut -c1-200
  $PY bench.py kb-judge --results "$O/fix" 2>&1 | head -12
  $PY -c "import json; [print(r['task_id'], r['correct'], r['error_type'], r['flags'], (r['error_msg'] or '')[:300])
for r in map(json.loads, open('$O/fix/results.jsonl'))]" 2>&1
  rm -rf "$O/fix/solutions"
}

run_rllong() {  # issue 21: DRPO and GRPO from the pipeline's SFT checkpoint ($GS/sft), each alone on the card, one
  # after the other, RLLONG_S seconds each, with the pipeline's RL settings (--preset gpu-small), into
  # $GS/rl_long_<loss>. Session 35: beside each other in the pipeline both got 4 steps in 130 s (verify 23-39 s a step,
  # the two judges queue on one GPU lock); DRPO alone made 18 steps in 260 s. Then GSAB_NAMES="sft rl_long_drpo
  # rl_long_grpo" bash gpu_run.sh gsab.
  section rllong
  for loss in ${RLLONG_LOSSES:-drpo grpo}; do
    timeout $(( ${RLLONG_S:-260} + 90 )) $PY train.py --stage rl --preset gpu-small --init "$GS/sft" \
      --tasks "$GS/data/tasks_rl.jsonl" --out "$GS/rl_long_$loss" --loss $loss --device cuda --judge-workers 8 \
      --rl-time-limit-s ${RLLONG_S:-260} > "$GS/rl_long_$loss.log" 2>&1
    echo "rl_long_$loss rc $?"; grep -E "^step|stopping|rror" "$GS/rl_long_$loss.log" | cut -c1-200 | tail -4
  done
}

run_gsab() {  # issue 21: DRPO and GRPO against SFT on KernelBench level 1 without judging the answers they share:
  # each checkpoint of a finished pipeline ($GS/sft, rl, rl_grpo; GSAB_NAMES: others in $GS, the first the base)
  # writes its greedy answers with the pipeline's generation settings (eval.py --propose-only), then bench.py kb-ab
  # judges and times, on this card in one call, ABBA over KBAB_ROUNDS, only the tasks where an answer differs from
  # the base's. The level's Acc differs by the replayed tasks' Acc alone (the other answers are the same code). Logs
  # and outputs in $GS (gswait's gs.tgz).
  section gsab
  local names=""
  for n in ${GSAB_NAMES:-sft rl rl_grpo}; do
    [ -d "$GS/$n" ] || { echo "gsab: no $GS/$n"; continue; }
    timeout ${GSAB_PROPOSE_S:-300} $PY eval.py --tasks devdata/KernelBench/level1 --policy "$GS/$n" --device cuda \
      --propose-only --temperature 0 --max-new-tokens 1536 --gen-batch-size 64 --chunk-size 100 \
      --out "$GS/ab_${n}_kb1" 2>&1 | tail -2 | cut -c1-200
    names="$names $GS/ab_${n}_kb1"
  done
  timeout ${GSAB_S:-600} $PY bench.py kb-ab --results $names --tasks devdata/KernelBench/level1 \
    --rounds ${KBAB_ROUNDS:-2} --out "$GS/kbab" > "$GS/kbab.txt" 2>&1
  echo "kb-ab rc $?" >> "$GS/kbab.txt"; tail -30 "$GS/kbab.txt" | cut -c1-300
}

pack() {  # after every section, so a call cut short still brings back what finished
  [ -n "${OUT:-}" ] && tar czf "$OUT/results.tgz" --exclude='*.safetensors' --exclude='*.pt' -C "$O" .
  [ -n "${OUT:-}" ] && [ -d devout ] && tar czf "$OUT/devout.tgz" --exclude='*.safetensors' --exclude='*.pt' devout
}

for s in "$@"; do
  "run_$s"
  pack
done
section done
