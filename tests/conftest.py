"""Shared pytest setup: siblings import directly, and without CUDA Triton kernels run through the
interpreter (TRITON_INTERPRET=1), which must be chosen before triton is first imported."""
import os
import sys

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
