"""The fine-tune's adapters (control_finetune.py --mode lora) as a llama.cpp LoRA GGUF, which
llama.cpp applies at load (`--lora`; node-llama-cpp's createContext({ lora })).

llama.cpp's adapter format: general.type "adapter", adapter.type "lora", general.architecture the
base model's, and per adapted weight W (ggml ne [in, out]) two tensors named after it, W.lora_a
(ne [in, r], numpy (r, in)) and W.lora_b (ne [r, out], numpy (out, r)); the update is
scale * B A with scale = adapter.lora.alpha / r. The tensors here carry their scale in B
already, so alpha is written as r (scale 1).

    python3 models/train/lora_gguf.py OUT/lora.pt OUT/lora.gguf [--architecture qwen2]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch


def write_lora_gguf(tensors: dict[str, torch.Tensor], path: Path, architecture: str = "qwen2") -> None:
    from gguf import GGUFWriter

    ranks = {t.shape[0] for name, t in tensors.items() if name.endswith(".lora_a")}
    if len(ranks) != 1:
        raise ValueError(f"expected one rank across the adapters, found {sorted(ranks)}")
    rank = ranks.pop()
    writer = GGUFWriter(str(path), architecture)
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(rank))
    for name in sorted(tensors):
        writer.add_tensor(name, tensors[name].detach().float().numpy().astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("adapters", type=Path, help="lora.pt from control_finetune.py")
    parser.add_argument("out", type=Path, help="the adapter GGUF to write")
    parser.add_argument("--architecture", default="qwen2")
    args = parser.parse_args()
    write_lora_gguf(torch.load(args.adapters), args.out, args.architecture)
    print(f"{args.out}: {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
