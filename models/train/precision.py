"""Which precision to train in: bf16 autocast where the hardware runs it fast, fp32 elsewhere.

bf16 autocast is ~3x faster than fp32 on a CPU with AVX512-BF16 or AMX (PLATFORM-FACTS), and
~15x *slower* on one without: on a 2-core AMD EPYC with only AVX2, a 1,024 x 1,024 matmul ran at
4.8 GFLOPS in bf16 against 71 GFLOPS in fp32 (2026-12-01), so a bf16 fine-tune step took 128 s
instead of 7. The machines this project runs on differ from session to session, so `auto`
measures instead of assuming.
"""
from __future__ import annotations

import time

import torch

PRECISIONS = ("auto", "bf16", "fp32")
# bf16 must beat fp32 by this factor to be chosen: it also costs some accuracy.
BF16_MARGIN = 1.2
PROBE_SIZE = 384
PROBE_REPEATS = 4


def matmul_seconds(dtype: torch.dtype, device: str) -> float:
    """Best-of-few time of one PROBE_SIZE square matmul under autocast to `dtype` (fp32: no autocast)."""
    a = torch.randn(PROBE_SIZE, PROBE_SIZE, device=device)
    b = torch.randn(PROBE_SIZE, PROBE_SIZE, device=device)
    best = float("inf")
    with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16, enabled=dtype == torch.bfloat16):
        for _ in range(PROBE_REPEATS + 1):  # the first run warms up
            started = time.perf_counter()
            (a @ b).sum().item()
            best = min(best, time.perf_counter() - started)
    return best


def resolve_precision(choice: str, device: str) -> tuple[str, dict]:
    """The precision to train in and why: `choice` unless it is `auto`, which measures."""
    if choice != "auto":
        return choice, {"chosen": choice, "by": "flag"}
    if torch.device(device).type == "cuda":
        chosen = "bf16" if torch.cuda.is_bf16_supported() else "fp32"
        return chosen, {"chosen": chosen, "by": "cuda bf16 support"}
    fp32, bf16 = matmul_seconds(torch.float32, device), matmul_seconds(torch.bfloat16, device)
    chosen = "bf16" if fp32 / bf16 >= BF16_MARGIN else "fp32"
    return chosen, {"chosen": chosen, "by": "matmul probe", "fp32_ms": round(fp32 * 1e3, 3), "bf16_ms": round(bf16 * 1e3, 3)}
