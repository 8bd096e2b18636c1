"""Reads the training-data builder's token shards and packs them into fixed-length windows.

Shard format (written by models/data, specified in docs/model-pipeline.md): per shard a file of
uint16 little-endian token ids (sequences back to back), a parallel file of uint8 loss-weight
classes (one per token), and a JSON index with each sequence's offset. `read_index` is the only
function that knows the index layout; everything else sees `Span`s.

Loss-weight classes (the mask value of token i applies to predicting token i from tokens < i):
  0 = no loss (prompt context the model conditions on), 1 = normal next-token loss,
  2 = control/selection tokens (<NEED>/<DONE>/<KEEP>/<DROP>), weighted by lambda (RepoShapley
  §3.4, lambda_R = lambda_S = 2.0 in §4.1). Weights per class are a trainer option.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

MAX_WEIGHT_CLASS = 255
# How far ahead in the epoch's order the packer looks for a sequence that fills a window's gap.
LOOKAHEAD = 256

# Copy drills (see CopyDrills): lengths of the repeated random token string.
DRILL_MIN_LENGTH = 16
DRILL_MAX_LENGTH = 256


@dataclass(frozen=True)
class Span:
    """One sequence: tokens[start:start + length] of shard `shard`."""

    shard: int
    start: int
    length: int


@dataclass
class Shard:
    name: str
    split: str
    tokens: np.ndarray  # uint16 memmap
    mask: np.ndarray  # uint8 memmap


class ShardSet:
    """The sequences of one split (e.g. "train" or "val") of an index, memory-mapped."""

    def __init__(self, index_path: str | os.PathLike, split: Optional[str]) -> None:
        self.index_path = Path(index_path)
        self.index, self.shards, spans = read_index(self.index_path)
        self.spans = [s for s in spans if split is None or self.shards[s.shard].split == split]
        self.split = split
        self.total_tokens = sum(s.length for s in self.spans)
        if not self.spans:
            raise ValueError(f"{index_path}: no sequences in split {split!r}")

    @property
    def vocab_size(self) -> Optional[int]:
        value = self.index.get("vocabSize", self.index.get("vocab_size"))
        return int(value) if value is not None else None

    def ordinary_tokens(self) -> int:
        """Ids below this are ordinary tokens: the lowest special id of the index, else the vocabulary."""
        special = self.index.get("special", {})
        ids = [int(v) for value in special.values() for v in (value if isinstance(value, list) else [value])]
        return min(ids) if ids else (self.vocab_size or self.max_token() + 1)

    def max_token(self) -> int:
        used = {s.shard for s in self.spans}
        return max(int(self.shards[i].tokens.max()) for i in used)

    def read(self, span: Span, offset: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        shard = self.shards[span.shard]
        begin = span.start + offset
        return shard.tokens[begin:begin + count], shard.mask[begin:begin + count]


def read_index(index_path: Path) -> tuple[dict, list[Shard], list[Span]]:
    """Parse the JSON index. Accepted per-shard sequence layouts: `offsets` (n + 1 boundaries),
    or `sequences` as [offset, length] pairs or {"offset", "length"} objects."""
    index = json.loads(index_path.read_text(encoding="utf-8"))
    root = index_path.parent
    shards: list[Shard] = []
    spans: list[Span] = []
    for number, entry in enumerate(index["shards"]):
        tokens = np.memmap(root / entry["tokens"], dtype="<u2", mode="r")
        mask = np.memmap(root / entry["mask"], dtype=np.uint8, mode="r")
        if len(tokens) != len(mask):
            raise ValueError(f"shard {entry['tokens']}: {len(tokens)} tokens but {len(mask)} mask bytes")
        shards.append(Shard(entry.get("name", entry["tokens"]), entry.get("split", "train"), tokens, mask))
        for start, length in _sequence_bounds(entry):
            if start < 0 or length < 0 or start + length > len(tokens):
                raise ValueError(f"shard {entry['tokens']}: sequence [{start}, +{length}) out of range")
            if length >= 2:
                spans.append(Span(number, start, length))
    return index, shards, spans


def _sequence_bounds(entry: dict) -> Iterator[tuple[int, int]]:
    if "offsets" in entry:
        offsets = entry["offsets"]
        for a, b in zip(offsets, offsets[1:]):
            yield int(a), int(b) - int(a)
        return
    for item in entry["sequences"]:
        if isinstance(item, dict):
            yield int(item["offset"]), int(item["length"])
        else:
            yield int(item[0]), int(item[1])


class Packer:
    """Packs whole sequences (shuffled per epoch) into windows of seq_len + 1 tokens: inputs are
    window[:-1], targets window[1:]. A sequence is never split unless it alone exceeds the window
    (then it is cut into window-sized pieces overlapping by one token, so each of its tokens is a
    target once). When the next sequence does not fit the rest of a window, the first one of the
    next LOOKAHEAD in the epoch's order that fits is packed there instead (first fit), and what
    is left is padding (document -1, class 0): 10.8% padding without look-ahead on the real
    shards at 1,024, 4.2% with it (256 ahead).

    Each token carries a document id: the model attends only within a document, and a document's
    first token is never a target. RoPE is relative, so a sequence packed at offset p computes
    what it computes alone at offset 0: training sees every sequence exactly as inference does.
    `state()` / `restore()` make the position resumable."""

    def __init__(self, data: ShardSet, seq_len: int, seed: int, shuffle: bool = True) -> None:
        self.data = data
        self.seq_len = seq_len
        self.seed = seed
        self.shuffle = shuffle
        self.epoch = 0
        self.cursor = 0  # index into the epoch's order
        self.offset = 0  # token offset inside the current sequence (pieces of long ones)
        self.taken: set[int] = set()  # positions after the cursor already packed (first fit)
        self._order = self._epoch_order()

    def _epoch_order(self) -> np.ndarray:
        n = len(self.data.spans)
        if not self.shuffle:
            return np.arange(n)
        return np.random.RandomState((self.seed * 1_000_003 + self.epoch) % (2**32)).permutation(n)

    def state(self) -> dict:
        return {"epoch": self.epoch, "cursor": self.cursor, "offset": self.offset, "taken": sorted(self.taken)}

    def restore(self, state: dict) -> None:
        self.epoch = int(state["epoch"])
        self.cursor = int(state["cursor"])
        self.offset = int(state["offset"])
        self.taken = {int(p) for p in state.get("taken", [])}
        self._order = self._epoch_order()

    def next_window(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(tokens int64, weight classes uint8, document ids int32), each [seq_len + 1]."""
        need = self.seq_len + 1
        tokens = np.zeros(need, dtype=np.int64)
        classes = np.zeros(need, dtype=np.uint8)
        docs = np.full(need, -1, dtype=np.int32)
        filled, doc = 0, 0
        while filled < need:
            self._skip_taken()
            span = self.data.spans[self._order[self.cursor]]
            remaining = span.length - self.offset
            if filled > 0 and remaining > need - filled:
                # First fit: a later sequence of this epoch that fills the gap, else padding.
                ahead = self._fitting_ahead(need - filled)
                if ahead is None:
                    break
                self.taken.add(ahead)
                span, start, take = self.data.spans[self._order[ahead]], 0, self.data.spans[self._order[ahead]].length
            else:
                start, take = self.offset, min(remaining, need - filled)
                if take < remaining:
                    self.offset += take - 1  # the piece's last token starts the next piece
                else:
                    self.cursor, self.offset = self.cursor + 1, 0
            t, m = self.data.read(span, start, take)
            tokens[filled:filled + take] = t
            classes[filled:filled + take] = m
            classes[filled] = 0  # a document's first token has no context to be predicted from
            docs[filled:filled + take] = doc
            filled, doc = filled + take, doc + 1
        return tokens, classes, docs

    def _skip_taken(self) -> None:
        """Advance past sequences already packed out of order; roll over to the next epoch."""
        while True:
            if self.cursor >= len(self._order):
                self.epoch, self.cursor, self.offset = self.epoch + 1, 0, 0
                self._order = self._epoch_order()
            if self.cursor not in self.taken:
                return
            self.taken.remove(self.cursor)
            self.cursor += 1

    def _fitting_ahead(self, room: int) -> Optional[int]:
        end = min(self.cursor + 1 + LOOKAHEAD, len(self._order))
        for position in range(self.cursor + 1, end):
            if position not in self.taken and self.data.spans[self._order[position]].length <= room:
                return position
        return None

    def batch(self, batch_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return stack_windows([self.next_window() for _ in range(batch_size)])


def stack_windows(windows: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tokens, classes, docs) windows as three [batch, length] arrays."""
    return tuple(np.stack([w[i] for w in windows]) for i in range(3))  # type: ignore[return-value]


class CopyDrills:
    """Mixes induction drills into training batches: a window that is one random string of
    ordinary tokens (16-256 long) repeated to the window's end, with loss on every repetition
    and none on the first occurrence, which nothing predicts.

    Why: copying a span seen earlier in the context (an induction head) is what lets a model use
    retrieved chunks at all, and the default model had not learned it after 30M tokens of code:
    on a random string shown twice its loss stayed near uniform the second time (docs/training.md).
    Repeated random strings are the cleanest signal for that circuit and carry nothing the model
    could memorize instead. Which windows are drills is a function of (seed, window number), so
    a resumed run draws the same ones; the count is part of the packer's state."""

    def __init__(self, packer: Packer, fraction: float, ordinary_tokens: int, seed: int) -> None:
        if not 0.0 <= fraction < 1.0:
            raise ValueError(f"copy drill fraction {fraction} is not in [0, 1)")
        self.packer = packer
        self.fraction = fraction
        self.ordinary_tokens = ordinary_tokens
        self.seed = seed
        self.windows = 0  # windows handed out so far, drills included

    def state(self) -> dict:
        return {**self.packer.state(), "drill_windows": self.windows}

    def restore(self, state: dict) -> None:
        self.packer.restore(state)
        self.windows = int(state.get("drill_windows", 0))

    def next_window(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rng = np.random.RandomState((self.seed * 7_919 + self.windows) % (2**32))
        self.windows += 1
        if rng.random_sample() >= self.fraction:
            return self.packer.next_window()
        return drill_window(rng, self.packer.seq_len + 1, self.ordinary_tokens)

    def batch(self, batch_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return stack_windows([self.next_window() for _ in range(batch_size)])


def drill_window(rng: np.random.RandomState, length: int, ordinary_tokens: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One random string repeated to `length` tokens; loss class 1 from its second occurrence on."""
    period = int(rng.randint(DRILL_MIN_LENGTH, DRILL_MAX_LENGTH + 1))
    string = rng.randint(0, ordinary_tokens, size=period)
    tokens = np.resize(string, length).astype(np.int64)
    classes = np.ones(length, dtype=np.uint8)
    classes[:period] = 0
    return tokens, classes, np.zeros(length, dtype=np.int32)


def copy_probe_windows(ordinary_tokens: int, count: int = 16, period: int = 64) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Fixed induction probes: random strings of `period` tokens shown twice, loss on the second
    showing. A model that copies scores far below ln(vocabulary); one that cannot stays near it."""
    rng = np.random.RandomState(20_261_129)
    windows = []
    for _ in range(count):
        string = rng.randint(0, ordinary_tokens, size=period)
        classes = np.zeros(2 * period, dtype=np.uint8)
        classes[period + 1:] = 1  # the second showing's first token is not predictable either
        windows.append((np.concatenate([string, string]).astype(np.int64), classes, np.zeros(2 * period, dtype=np.int32)))
    return windows


def validation_windows(data: ShardSet, seq_len: int, max_tokens: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A fixed, unshuffled set of windows covering up to max_tokens validation tokens."""
    packer = Packer(data, seq_len, seed=0, shuffle=False)
    count = max(1, min(max_tokens, data.total_tokens) // seq_len)
    return [packer.next_window() for _ in range(count)]


def write_synthetic_shards(
    directory: str | os.PathLike,
    vocab_size: int,
    sequences: int = 64,
    length: int = 300,
    seed: int = 0,
    val_fraction: float = 0.25,
) -> Path:
    """Write a small learnable shard set for tests and the CI smoke run: each sequence (length
    length/4..length) repeats a short random motif, so a few training steps lower the loss. The first token of
    each sequence has class 0, every 7th token class 2 (a stand-in for control tokens).
    Motifs come from a pool shared by both splits, so the validation loss falls too."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(seed)
    n_val = max(1, int(sequences * val_fraction))
    pool = [rng.randint(0, vocab_size, size=rng.randint(3, 9)) for _ in range(8)]
    entries = []
    for split, count in (("train", sequences - n_val), ("val", n_val)):
        tokens, masks, offsets = [], [], [0]
        for _ in range(count):
            motif = pool[rng.randint(len(pool))]
            n = rng.randint(max(2, length // 4), length + 1)
            seq = np.resize(motif, n).astype("<u2")
            mask = np.ones(n, dtype=np.uint8)
            mask[0] = 0
            mask[7::7] = 2
            tokens.append(seq)
            masks.append(mask)
            offsets.append(offsets[-1] + n)
        name = f"{split}-00000"
        np.concatenate(tokens).tofile(directory / f"{name}.tokens.u16")
        np.concatenate(masks).tofile(directory / f"{name}.mask.u8")
        entries.append({"name": name, "split": split, "tokens": f"{name}.tokens.u16",
                        "mask": f"{name}.mask.u8", "offsets": offsets})
    index = {"version": 1, "vocabSize": vocab_size, "synthetic": True, "shards": entries}
    path = directory / "index.json"
    path.write_text(json.dumps(index), encoding="utf-8")
    return path
