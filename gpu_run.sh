#!/usr/bin/env bash
# The H200 measurements behind LOG.md, in named sections so one device call can run several:
#   bash gpu_run.sh judge teacher search      # each section writes its log under $OUT (default /tmp/gpu_out)
# Sections: env judge noise teacher eval search rollout sft rl. Every section is time-boxed with `timeout`
# so one slow step cannot eat the whole call; the last lines of each log are printed at the end.
set -u
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/gpu_out}
mkdir -p "$O"
PY=${PY:-python3}

section() { echo "=== $1 ($(date +%H:%M:%S))"; }

run_env() {
  section env
  nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv | tee "$O/env.txt"
  $PY -c "import torch, triton, transformers, peft; print('torch', torch.__version__, 'triton', triton.__version__,
'transformers', transformers.__version__, 'peft', peft.__version__)" | tee -a "$O/env.txt"
}

run_judge() {  # issue 3: the hack and fault suite with real kernels and timing; pool throughput
  section judge
  timeout 240 $PY -m pytest tests/test_reward.py -x -p no:cacheprovider > "$O/judge_tests.txt" 2>&1
  tail -4 "$O/judge_tests.txt"
  timeout 150 $PY bench.py verify --device cuda --n 64 --workers 4 > "$O/verify.txt" 2>&1
  tail -6 "$O/verify.txt"
}

run_noise() {  # issue 3: the same kernels timed twice
  section noise
  timeout 150 $PY bench.py timing-noise --device cuda --n 20 --workers 2 > "$O/noise.txt" 2>&1
  tail -3 "$O/noise.txt"
}

run_teacher() {  # issue 4 + 8: teacher solutions at paper sizes vs eager (and torch.compile on level 2)
  section teacher
  $PY synth.py --num-programs 100 --levels 2 --size paper --seed 0 --workers 12 --out "$O/paper_l2.jsonl" > "$O/synth_paper.txt" 2>&1
  $PY synth.py --num-programs 100 --levels 5 --size paper --seed 0 --workers 12 --out "$O/paper_l5.jsonl" >> "$O/synth_paper.txt" 2>&1
  tail -2 "$O/synth_paper.txt"
  timeout 330 $PY eval.py --tasks "$O/paper_l2.jsonl" --policy teacher --out "$O/eval_l2" --baseline eager,compile \
    --device cuda --workers 6 > "$O/eval_l2.txt" 2>&1
  tail -2 "$O/eval_l2.txt"
  timeout 200 $PY eval.py --tasks "$O/paper_l5.jsonl" --policy teacher --out "$O/eval_l5" --device cuda \
    --workers 6 > "$O/eval_l5.txt" 2>&1
  tail -2 "$O/eval_l5.txt"
}

run_search() {  # issue 7: search with the teacher on level-5 paper programs, and a conv + epilogue task
  section search
  head -n 10 "$O/paper_l5.jsonl" > "$O/search_tasks.jsonl" 2>/dev/null || \
    $PY synth.py --num-programs 10 --levels 5 --size paper --seed 1 --workers 12 --out "$O/search_tasks.jsonl"
  timeout 300 $PY search.py --task "$O/search_tasks.jsonl" --policy teacher --max-fragment 5 --beam 2 \
    --device cuda --out "$O/search" > "$O/search.txt" 2>&1
  tail -4 "$O/search.txt"
  timeout 120 $PY search.py --task tests/kernelbench/2_conv2d_relu_biasadd.py --policy teacher --beam 2 \
    --device cuda --out "$O/search_conv" > "$O/search_conv.txt" 2>&1
  tail -3 "$O/search_conv.txt"
}

run_rollout() {  # issue 9
  section rollout
  timeout 420 $PY bench.py rollout --model-config qwen2.5-7b > "$O/rollout.txt" 2>&1
  tail -12 "$O/rollout.txt"
}

run_sft() {  # issue 5: one LoRA r=64 SFT step at 16 x 2048 tokens, 7B shape
  section sft
  timeout 240 $PY bench.py sft-step --model-config qwen2.5-7b > "$O/sft_step.txt" 2>&1
  tail -6 "$O/sft_step.txt"
}

run_rl() {  # issue 6: one RL step, 7B shape, 8 prompts x G=8 x 1024 new tokens
  section rl
  timeout 300 $PY bench.py rl-step --model-config qwen2.5-7b > "$O/rl_step.txt" 2>&1
  tail -8 "$O/rl_step.txt"
}

for s in "$@"; do
  "run_$s"
done
section done
