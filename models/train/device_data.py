"""Moves training shards to the GPU machine and weights back, within its transfer limits.

The device tool carries at most 64 MiB of working tree (tracked files included) and returns
files of at most 16 MiB. Token shards compress about 2.6x with gzip (uint16 code tokens) and
loss masks about 170x, so the whole train split fits compressed; weights come back in pieces.

    device_data.py pack   --data ~/.cache/reposhapley/data/index.json --out .gpu-data   (here)
    device_data.py unpack --src .gpu-data --out /tmp/data                              (there)
    device_data.py split  --file weights.pt --out $OUT                                 (there)
    device_data.py join   --src DIR --out weights.pt                                   (here)
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import sys
from pathlib import Path

sys.dont_write_bytecode = True

PIECE_BYTES = 15 * 1024 * 1024  # under the 16 MiB per returned file


def pack(index_path: Path, out: Path) -> None:
    """Copy index.json and gzip every shard it names, keeping the relative layout."""
    index = json.loads(index_path.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    for entry in index["shards"]:
        for key in ("tokens", "mask"):
            source = index_path.parent / entry[key]
            target = out / (entry[key] + ".gz")
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(source, "rb") as f, gzip.open(target, "wb", compresslevel=6) as g:
                shutil.copyfileobj(f, g, 1 << 20)
    shutil.copy(index_path, out / "index.json")
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(json.dumps({"packed": str(out), "bytes": total, "shards": len(index["shards"])}))


def unpack(src: Path, out: Path) -> None:
    """Inverse of pack: gunzip every shard next to a copy of index.json."""
    out.mkdir(parents=True, exist_ok=True)
    for gz in src.rglob("*.gz"):
        target = out / gz.relative_to(src).with_suffix("")
        target.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(gz, "rb") as g, open(target, "wb") as f:
            shutil.copyfileobj(g, f, 1 << 20)
    shutil.copy(src / "index.json", out / "index.json")
    print(json.dumps({"unpacked": str(out)}))


def split(file: Path, out: Path) -> None:
    """Cut a file into PIECE_BYTES pieces NAME.partNN plus NAME.sha256."""
    out.mkdir(parents=True, exist_ok=True)
    data = file.read_bytes()
    for i in range(0, max(1, len(data)), PIECE_BYTES):
        (out / f"{file.name}.part{i // PIECE_BYTES:02d}").write_bytes(data[i:i + PIECE_BYTES])
    (out / f"{file.name}.sha256").write_text(hashlib.sha256(data).hexdigest() + "\n")


def join(src: Path, out: Path) -> None:
    """Reassemble split pieces; refuses a result whose sha256 differs from the recorded one."""
    pieces = sorted(src.glob(f"{out.name}.part*"))
    if not pieces:
        raise SystemExit(f"no {out.name}.partNN pieces in {src}")
    data = b"".join(p.read_bytes() for p in pieces)
    expected = (src / f"{out.name}.sha256").read_text().strip()
    if hashlib.sha256(data).hexdigest() != expected:
        raise SystemExit(f"{out}: sha256 mismatch, a piece is missing or damaged")
    out.write_bytes(data)
    print(json.dumps({"joined": str(out), "bytes": len(data)}))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("pack"); a.add_argument("--data", required=True); a.add_argument("--out", required=True)
    b = sub.add_parser("unpack"); b.add_argument("--src", required=True); b.add_argument("--out", required=True)
    c = sub.add_parser("split"); c.add_argument("--file", required=True); c.add_argument("--out", required=True)
    d = sub.add_parser("join"); d.add_argument("--src", required=True); d.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.command == "pack":
        pack(Path(args.data).expanduser(), Path(args.out))
    elif args.command == "unpack":
        unpack(Path(args.src), Path(args.out))
    elif args.command == "split":
        split(Path(args.file), Path(args.out))
    else:
        join(Path(args.src), Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
