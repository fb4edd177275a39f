"""How an answer's large output could reach the judge's worker on a GPU, measured (a probe for reward.py's transport).

The judge moves every trial's output from the answer's process to the worker through host memory: the answer copies
it into a shared memfd (device to host, pageable), the worker reads it back onto the GPU chunk by chunk to compare.
At KernelBench's level-2 sizes an output is 1-2 GB and this is most of a verdict's check time. Three ways, each
timed from "the answer's output is on its GPU" to "the worker has compared it with its own copy":

  host     the current path: D2H into a memfd mapping, then chunked H2D and compare in the worker
  pinned   the same with both mappings page-locked (cudaHostRegister; its cost timed apart)
  ipc      CUDA IPC: the answer exports the allocation (cuIpcGetMemHandle), the worker maps it
           (cuIpcOpenMemHandle), checks that the claimed bytes lie inside the mapped allocation
           (cuMemGetAddressRange), and compares in place; a claim past the allocation must be refused unread

    python tools/ipc_probe.py --gb 2 --rounds 3

Prints one JSON line per way and a summary line. Needs CUDA; two processes, as in the judge.
"""
import argparse
import ctypes
import json
import mmap
import multiprocessing as mp
import os
import time

CHUNK = 1 << 26   # bytes per H2D chunk in the worker, as the judge reads a host output


def _driver():
    cu = ctypes.CDLL("libcuda.so.1")
    for name in ("cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2", "cuIpcCloseMemHandle", "cuMemGetAddressRange_v2"):
        if not hasattr(cu, name):
            raise OSError(f"libcuda has no {name}")
    return cu


def _check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUresult {rc}")


def _as_cuda_tensor(torch, ptr, nbytes, device):
    """A uint8 tensor viewing `nbytes` of device memory at `ptr` (no copy), through __cuda_array_interface__."""
    class View:
        __cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, True), "version": 3,
                                    "strides": None}
    return torch.as_tensor(View(), device=device)


def answer_side(conn, nbytes, fd):
    """The answer's process: make the output on the GPU, then serve each way the worker asks for."""
    import torch
    torch.cuda.init()
    g = torch.Generator(device="cuda").manual_seed(1)
    out = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda", generator=g)
    torch.cuda.synchronize()
    shm = mmap.mmap(fd, nbytes)
    view = torch.frombuffer(shm, dtype=torch.uint8)
    cu = _driver()
    while True:
        op = conn.recv()
        if op == "exit":
            break
        if op in ("host", "pinned"):
            t = time.perf_counter()
            view.copy_(out)
            torch.cuda.synchronize()
            conn.send({"d2h_s": time.perf_counter() - t})
        elif op == "pin":
            t = time.perf_counter()
            rc = torch.cuda.cudart().cudaHostRegister(view.data_ptr(), nbytes, 0)
            conn.send({"register_s": time.perf_counter() - t, "rc": int(rc)})
        elif op == "ipc":
            t = time.perf_counter()
            handle = (ctypes.c_byte * 64)()
            base, size = ctypes.c_uint64(), ctypes.c_size_t()
            _check(cu.cuIpcGetMemHandle(handle, ctypes.c_uint64(out.data_ptr())), "cuIpcGetMemHandle")
            _check(cu.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(out.data_ptr())),
                   "cuMemGetAddressRange")
            conn.send({"handle": bytes(handle).hex(), "offset": out.data_ptr() - base.value, "nbytes": nbytes,
                       "export_s": time.perf_counter() - t})
    conn.close()


def worker_side(torch, conn, nbytes, shm, way, expect):
    """One transfer and compare in the worker; returns its timings."""
    cu = _driver()
    t0 = time.perf_counter()
    if way in ("host", "pinned"):
        conn.send(way)
        reply = conn.recv()
        src = torch.frombuffer(shm, dtype=torch.uint8)
        same = True
        for a in range(0, nbytes, CHUNK):
            same &= bool(torch.equal(src[a:a + CHUNK].to("cuda", non_blocking=False), expect[a:a + CHUNK]))
        torch.cuda.synchronize()
        return {"way": way, "s": time.perf_counter() - t0, "same": same, **reply}
    conn.send("ipc")
    msg = conn.recv()
    t1 = time.perf_counter()
    handle = (ctypes.c_byte * 64).from_buffer_copy(bytes.fromhex(msg["handle"]))
    ptr = ctypes.c_uint64()
    _check(cu.cuIpcOpenMemHandle_v2(ctypes.byref(ptr), handle, ctypes.c_uint(1)), "cuIpcOpenMemHandle")
    try:
        base, size = ctypes.c_uint64(), ctypes.c_size_t()
        _check(cu.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ptr), "cuMemGetAddressRange")
        offset, n = int(msg["offset"]), int(msg["nbytes"])

        def inside(off, count):   # the claimed bytes lie in the mapped allocation [base, base + size)
            return off >= 0 and count >= 0 and ptr.value + off + count <= base.value + size.value
        # the guard a hostile answer process meets: a claim past the mapped allocation is refused before a read
        refused = not inside(offset, n + size.value)
        if not inside(offset, n):
            return {"way": way, "error": "claimed bytes outside the allocation"}
        got = _as_cuda_tensor(torch, ptr.value + offset, n, "cuda")
        same = bool(torch.equal(got, expect))
        torch.cuda.synchronize()
        del got
    finally:
        _check(cu.cuIpcCloseMemHandle(ptr), "cuIpcCloseMemHandle")
    return {"way": way, "s": time.perf_counter() - t0, "open_compare_s": time.perf_counter() - t1,
            "same": same, "oversized_claim_refused": refused, "export_s": msg["export_s"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gb", type=float, default=2.0, help="output size in GB")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    nbytes = int(args.gb * (1 << 30))
    fd = os.memfd_create("probe")
    os.ftruncate(fd, nbytes)
    ctx = mp.get_context("fork")   # before this process imports torch: the child starts CUDA on its own
    here, there = ctx.Pipe()
    proc = ctx.Process(target=answer_side, args=(there, nbytes, fd), daemon=True)
    proc.start()
    import torch
    torch.cuda.init()
    g = torch.Generator(device="cuda").manual_seed(1)
    expect = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda", generator=g)
    shm = mmap.mmap(fd, nbytes)
    rows = []
    for way in ("host", "ipc", "pinned"):
        if way == "pinned":
            here.send("pin")
            pin = here.recv()
            t = time.perf_counter()
            rc = torch.cuda.cudart().cudaHostRegister(
                torch.frombuffer(shm, dtype=torch.uint8).data_ptr(), nbytes, 0)
            rows.append({"way": "pin", "answer": pin, "worker_register_s": time.perf_counter() - t, "rc": int(rc)})
            print(json.dumps(rows[-1]), flush=True)
        for r in range(args.rounds):
            try:
                row = worker_side(torch, here, nbytes, shm, way, expect)
            except Exception as e:  # noqa: BLE001  (a probe: each way's failure is a finding)
                row = {"way": way, "error": f"{type(e).__name__}: {e}"}
            row["round"], row["gb"] = r, args.gb
            rows.append(row)
            print(json.dumps(row), flush=True)
    here.send("exit")
    proc.join(30)
    best = {w: min((r["s"] for r in rows if r.get("way") == w and "s" in r), default=None)
            for w in ("host", "pinned", "ipc")}
    print(json.dumps({"summary": best, "gb": args.gb}), flush=True)


if __name__ == "__main__":
    main()
