"""Shared pytest setup: Triton kernels run through the interpreter on CPU, and siblings import."""
import os
import sys

# The interpreter must be chosen before triton is first imported anywhere in the test process.
if not os.environ.get("CUDA_VISIBLE_DEVICES_FORCE_GPU"):
    os.environ.setdefault("TRITON_INTERPRET", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
