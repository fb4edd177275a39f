"""Shared pytest setup: siblings import directly, and without CUDA Triton kernels run through the
interpreter (TRITON_INTERPRET=1), which must be chosen before triton is first imported."""
import os
import sys
import tempfile

import torch

# the caches kept across runs (eval.py's baselines, the teacher's verdicts) start empty in every test session, in a
# folder of their own, so no test reads what an earlier run (or the user's own work) left there
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="drtriton-test-cache-")
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
