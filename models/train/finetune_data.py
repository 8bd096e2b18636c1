"""The control fine-tune's training data (control_finetune.py): each labeled instance's forward
passes, with the positions each of the paper's three losses reads (Section 3.4), and the batches
an epoch trains on."""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class Sequence:
    """One forward pass: tokens and, at positions, the token each must predict, by loss."""

    tokens: list[int]
    trigger: list[tuple[int, int]]    # (position, <NEED>/<DONE>)      L_R
    selection: list[tuple[int, int]]  # (position, <KEEP>/<DROP>)      L_S
    completion: list[tuple[int, int]]  # (position, y_t)               L_Y


COMPLETION_AFTER = ("no-retrieval", "evidence")


def instance_sequences(record: dict, ids: dict[str, int], completion_after: str = "no-retrieval",
                       generation_only: bool = False) -> list[Sequence]:
    """The instance's passes: the trigger prompt continued by Y and the token that ends the
    middle (r*, Y and where it stops), and the trigger prompt continued by the teacher-forced
    selection steps (each q_i*). Without the end token a tuned model learns what to write but
    not where to stop (an adapter trained so appended comments to every line). With
    `completion_after` "evidence" a record that has an evidence prompt (the verified coalition
    S*) reads Y there, in a pass of its own, and the first pass decides r* only.
    `generation_only`: only the passes that read Y, with L_Y alone (an adapter for a model that
    ships without trained control rows: no decision positions, and no pass read for them only)."""
    passes = _all_passes(record, ids, completion_after)
    if generation_only:
        return [Sequence(tokens=p.tokens, trigger=[], selection=[], completion=p.completion) for p in passes if p.completion]
    return passes


def _all_passes(record: dict, ids: dict[str, int], completion_after: str) -> list[Sequence]:
    trigger, rest = record["trigger"], record["generation"]
    y = record["y"] + ([record["end"]] if record.get("end") is not None else [])
    decision = len(trigger) - 1
    r_star = [(decision, ids["need"] if record["retrieval"] == "need" else ids["done"])]
    evidence = record.get("evidence") if completion_after == "evidence" else None
    if evidence:
        passes = [
            Sequence(tokens=list(trigger), trigger=r_star, selection=[], completion=[]),
            Sequence(tokens=evidence + y[:-1], trigger=[], selection=[],
                     completion=[(len(evidence) - 1 + t, token) for t, token in enumerate(y)]),
        ]
    else:
        start = decision + len(rest)
        passes = [Sequence(tokens=trigger + rest + y[:-1], trigger=r_star, selection=[],
                           completion=[(start + t, token) for t, token in enumerate(y)])]
    if record["selection"]:
        tokens, positions = list(trigger), []
        for step in record["selection"]:
            tokens += step
            positions.append(len(tokens) - 1)
        keep = [ids["keep"] if kept else ids["drop"] for kept in record["keep"][:len(positions)]]
        passes.append(Sequence(tokens=tokens, trigger=[], selection=list(zip(positions, keep)), completion=[]))
    return passes


def batches(passes: list[Sequence], max_tokens: int, shuffle: random.Random | None) -> list[list[Sequence]]:
    """Passes of similar length together, at most max_tokens (padded) per batch."""
    order = sorted(passes, key=lambda p: len(p.tokens))
    out, current = [], []
    for p in order:
        if current and (len(current) + 1) * len(p.tokens) > max_tokens:
            out.append(current)
            current = []
        current.append(p)
    if current:
        out.append(current)
    if shuffle is not None:
        shuffle.shuffle(out)
    return out


def epoch_batches(records: list[dict], ids, max_tokens, rng, completion_after: str = "no-retrieval",
                  generation_only: bool = False) -> list[list[Sequence]]:
    """One epoch's batches, in the order rng shuffles them (each epoch draws from rng once)."""
    passes = [p for record in records for p in instance_sequences(record, ids, completion_after, generation_only)]
    return batches(passes, max_tokens, rng)
