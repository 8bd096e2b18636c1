"""Writes a trained (or random test) model as a tensor dump for models/export/exportGguf.ts,
an fp16 weights file to commit, and reference logits for the parity check.

    dump.py --from CKPT_OR_WEIGHTS --out model.tensors [--weights-out models/default/weights/x.pt]
    dump.py --random-config '{"vocab_size": 600, "d_model": 64, ...}' --seed 1 --out t.tensors \
            --tokens tokens.json --logits-out logits.f32

Tensor dump layout (little-endian), read by models/export/tensorDump.ts:
    0   8 bytes  magic "RSTENSOR"
    8   u32      version (1)
    12  u32      reserved (0)
    16  u64      header byte length H
    24  H bytes  JSON header: {format, architecture, config, meta, tensors: [{name, shape, dtype,
                 offset, count}]}; names are llama.cpp's GGUF tensor names, shapes are torch order
                 ([rows, cols]), offsets are relative to the data start
    ... zero padding to a multiple of 64 = data start; each tensor float32, 64-byte aligned.
Logits file: float32 [len(tokens), vocab_size], row t = logits after tokens[0..t] (fp32, no autocast).
"""
from __future__ import annotations

import argparse
import json
import math
import struct
import sys
from pathlib import Path

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))

from checkpoint import load_model, save_weights  # noqa: E402
from model import LlamaModel, ModelConfig, gguf_tensors  # noqa: E402

MAGIC = b"RSTENSOR"
VERSION = 1
ALIGN = 64


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def write_tensor_dump(model: LlamaModel, path: Path, meta: dict) -> dict:
    tensors = [(name, t.detach().float().contiguous().cpu()) for name, t in gguf_tensors(model)]
    entries, offset = [], 0
    for name, t in tensors:
        entries.append({"name": name, "shape": list(t.shape), "dtype": "f32", "offset": offset, "count": t.numel()})
        offset = _align(offset + t.numel() * 4)
    header = {"format": "reposhapley-tensor-dump", "architecture": "llama", "config": model.config.to_dict(),
              "meta": meta, "tensors": entries}
    header_bytes = json.dumps(header).encode("utf-8")
    data_start = _align(24 + len(header_bytes))
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as f:
        f.write(MAGIC + struct.pack("<IIQ", VERSION, 0, len(header_bytes)) + header_bytes)
        f.write(b"\0" * (data_start - f.tell()))
        for entry, (_, t) in zip(entries, tensors):
            f.seek(data_start + entry["offset"])
            f.write(t.numpy().astype("<f4").tobytes())
        f.truncate(data_start + offset)
    partial.replace(path)
    return header


def randomize_for_parity(model: LlamaModel, seed: int) -> None:
    """Weights with varied logits (a freshly initialized model's are nearly uniform, which would
    make the parity check blind): N(0, 1/fan_in) matrices, N(0, 4/d) embeddings (tied logits
    then spread ~2 nats per standard deviation), norms near 1."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * noise)
            elif name == "tok_emb.weight":
                p.copy_(noise * 2.0 / math.sqrt(p.shape[1]))
            else:
                p.copy_(noise / math.sqrt(p.shape[1]))


@torch.no_grad()
def reference_logits(model: LlamaModel, tokens: list[int]) -> torch.Tensor:
    model.eval()
    return model(torch.tensor([tokens], dtype=torch.long))[0].float()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", help="checkpoint (step-*.pt, best.pt) or weights file")
    source.add_argument("--random-config", help="JSON ModelConfig of a random model (tests)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="tensor dump to write")
    p.add_argument("--weights-out", help="also write an fp16 weights file (committable, --init-weights)")
    p.add_argument("--tokens", help="JSON file with a list of token ids for --logits-out")
    p.add_argument("--logits-out", help="write fp32 reference logits of --tokens here")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.source:
        model, meta = load_model(args.source)
        meta = {**meta, "source": str(args.source)}
    else:
        model = LlamaModel(ModelConfig.from_dict(json.loads(args.random_config)))
        randomize_for_parity(model, args.seed)
        meta = {"random_seed": args.seed}
    summary = {"config": model.config.to_dict(), "params": model.parameter_counts(), "meta": meta}
    if args.out:
        write_tensor_dump(model, Path(args.out), meta)
    if args.weights_out:
        save_weights(model, Path(args.weights_out), meta)
    if args.logits_out:
        tokens = json.loads(Path(args.tokens).read_text())
        logits = reference_logits(model, tokens)
        Path(args.logits_out).write_bytes(logits.numpy().astype("<f4").tobytes())
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
