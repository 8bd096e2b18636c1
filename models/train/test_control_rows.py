"""Unit tests of the control-row trainer (control_rows.py) on synthetic features, where the
answer is known: hidden states whose first coordinate says NEED or DONE, KEEP or DROP."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HIDDEN, VOCAB = 32, 60
TEXTS = ["<NEED>", "<DONE>", "<KEEP>", "<DROP>", "<SELECT>"]
IDS = list(range(50, 55))  # the control tokens' ids: the last rows of the vocabulary


def write_features(folder: Path, instances: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0, 0.3, (VOCAB, HIDDEN)).astype("<f2")
    states, records = [], []
    for i in range(instances):
        need = i % 2 == 0
        base = len(states)
        trigger = rng.normal(0, 1, HIDDEN)
        trigger[0] = 3.0 if need else -3.0
        states.append(trigger)
        keep = [bool(rng.integers(0, 2)) for _ in range(3)] if need else []
        for k in keep:
            h = rng.normal(0, 1, HIDDEN)
            h[1] = 3.0 if k else -3.0
            states.append(h)
        generation = [rng.normal(0, 1, HIDDEN) for _ in range(4)]
        states.extend(generation)
        rows = list(range(base, len(states)))
        records.append({
            "id": f"i{i}", "repository": f"r{i % 8}", "split": "val" if i % 5 == 4 else "train", "kind": "line",
            "retrieval": "need" if need else "done", "keep": keep, "triggerRow": rows[0],
            "selectionRows": rows[1:1 + len(keep)], "generationRows": rows[1 + len(keep):],
            "generationTargets": [int(rng.integers(0, 50)) for _ in range(4)],
            "esEmpty": 40.0 if need else 90.0, "esBest": 90.0 if need else 90.0,
        })
    np.asarray(states, dtype="<f4").tofile(folder / "states.f32")
    matrix.tofile(folder / "output.f16")
    (folder / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "meta.json").write_text(json.dumps({
        "featureFormat": 2, "hidden": HIDDEN, "vocabulary": VOCAB, "source": "shapley", "controlTokens": dict(zip(TEXTS, IDS)),
    }))


def write_pack(folder: Path) -> None:
    folder.mkdir()
    np.zeros((len(TEXTS), 2, HIDDEN), dtype="<f4").tofile(folder / "rows.f32")
    (folder / "pack.json").write_text(json.dumps({
        "hidden": HIDDEN, "tokens": [{"text": t, "id": i} for t, i in zip(TEXTS, IDS)], "rows": {"file": "rows.f32"},
    }))


def train(tmp: Path, *extra: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(HERE / "control_rows.py"), "--features", str(tmp / "features"), "--pack", str(tmp / "pack"),
         "--out", str(tmp / "out"), "--threads", "1", *extra],
        capture_output=True, text=True, timeout=300,
    )
    if result.returncode != 0:
        raise AssertionError(result.stdout + result.stderr)
    return json.loads((tmp / "out" / "metrics.json").read_text())


class ControlRowsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        (self.tmp / "features").mkdir()
        write_features(self.tmp / "features", 40, seed=1)
        write_pack(self.tmp / "pack")

    def test_learns_separable_decisions_and_picks_t_c_on_validation(self) -> None:
        metrics = train(self.tmp, "--epochs", "300", "--lr", "0.05")
        self.assertEqual(metrics["val"]["trigger_auc"], 1.0)
        self.assertGreater(metrics["val"]["keep_auc"], 0.95)
        self.assertLess(metrics["val"]["L_R"], metrics["start"]["L_R"] / 4)
        # NEED instances gain 50 ES from retrieval, DONE ones nothing: t_c sends NEED ones only.
        self.assertEqual(metrics["threshold"]["es"], 90.0)
        rows = np.fromfile(self.tmp / "out" / "output_rows.f32", dtype="<f4").reshape(len(TEXTS), HIDDEN)
        self.assertGreater(rows[0, 0] - rows[1, 0], 0)  # NEED's row points along the NEED coordinate

    def test_generation_term_keeps_unused_rows_down(self) -> None:
        metrics = train(self.tmp, "--epochs", "200", "--lr", "0.05")
        self.assertLessEqual(metrics["train"]["L_Y"], metrics["start"]["L_Y"] + 1e-6)
        rows = np.fromfile(self.tmp / "out" / "output_rows.f32", dtype="<f4").reshape(len(TEXTS), HIDDEN)
        # <SELECT> is never a target: only L_Y moves it, and only towards lower logits.
        states = np.fromfile(self.tmp / "features" / "states.f32", dtype="<f4").reshape(-1, HIDDEN)
        self.assertLess(float((states @ rows[4]).mean()), 0.0)

    def test_cross_validation_holds_rows_back_when_the_labels_are_noise(self) -> None:
        # Shuffle the decisions: nothing in the states predicts them, so any learned direction is
        # memorization, and the held-out folds must prefer the strongest penalty on the grid.
        index = self.tmp / "features" / "index.jsonl"
        records = [json.loads(line) for line in index.read_text().splitlines()]
        rng = np.random.default_rng(7)
        for record in records:
            record["retrieval"] = "need" if rng.integers(0, 2) else "done"
            record["keep"] = [bool(rng.integers(0, 2)) for _ in record["keep"]]
        index.write_text("".join(json.dumps(r) + "\n" for r in records))
        metrics = train(self.tmp, "--epochs", "200", "--lr", "0.05", "--l2", "0,100")
        self.assertEqual([row["l2"] for row in metrics["cross_validation"]], [0.0, 100.0])
        self.assertEqual(metrics["l2"], 100.0)

    def test_cross_validation_lets_rows_learn_a_real_signal(self) -> None:
        metrics = train(self.tmp, "--epochs", "200", "--lr", "0.05", "--l2", "0,100")
        self.assertEqual(metrics["l2"], 0.0)

    def test_t_c_weighs_full_retrieval_not_the_oracle(self) -> None:
        # Retrieving everything helps the NEED instances (40 -> 80) and hurts the DONE ones (90 -> 60):
        # t_c must split them. With S* (never below the no-retrieval ES) t_c would be 0.
        index = self.tmp / "features" / "index.jsonl"
        records = [json.loads(line) for line in index.read_text().splitlines()]
        for record in records:
            record["esFull"] = 80.0 if record["retrieval"] == "need" else 60.0
        index.write_text("".join(json.dumps(r) + "\n" for r in records))
        metrics = train(self.tmp, "--epochs", "300", "--lr", "0.05", "--l2", "0")
        self.assertEqual(metrics["threshold"]["es"], 85.0)
        self.assertGreater(metrics["threshold"]["t_c"], 0.0)
        self.assertEqual(metrics["threshold"]["need_rate"], 0.5)

    def test_refuses_features_of_the_old_trigger_position(self) -> None:
        meta = json.loads((self.tmp / "features" / "meta.json").read_text())
        del meta["featureFormat"]
        (self.tmp / "features" / "meta.json").write_text(json.dumps(meta))
        with self.assertRaisesRegex(AssertionError, "features of format 1"):
            train(self.tmp, "--epochs", "1")

    def test_reports_the_trigger_both_ways_and_tunes_t_c_for_the_packs(self) -> None:
        pack = json.loads((self.tmp / "pack" / "pack.json").read_text())
        pack["trigger"] = "vocabulary"
        (self.tmp / "pack" / "pack.json").write_text(json.dumps(pack))
        metrics = train(self.tmp, "--epochs", "300", "--lr", "0.05", "--l2", "0")
        self.assertEqual(metrics["trigger"], "vocabulary")
        self.assertEqual(metrics["val"]["trigger_auc"], metrics["val"]["trigger_auc_vocabulary"])
        self.assertIsNotNone(metrics["val"]["trigger_auc_pair"])
        self.assertLess(metrics["threshold"]["t_c"], 1.0)

    def test_training_only_the_trigger_rows_leaves_the_others_as_packed(self) -> None:
        metrics = train(self.tmp, "--epochs", "300", "--lr", "0.05", "--l2", "0", "--train-rows", "trigger")
        self.assertEqual(metrics["train_rows"], "trigger")
        self.assertEqual(metrics["val"]["trigger_auc"], 1.0)
        rows = np.fromfile(self.tmp / "out" / "output_rows.f32", dtype="<f4").reshape(len(TEXTS), HIDDEN)
        self.assertTrue(np.all(rows[2:] == 0.0))  # KEEP, DROP, SELECT: the pack's (zero) rows
        self.assertGreater(rows[0, 0] - rows[1, 0], 0)

    def test_full_helps_auc_ranks_by_full_retrieval_and_leaves_ties_out(self) -> None:
        sys.path.insert(0, str(HERE))
        from control_rows import full_helps_auc
        records = [
            {"esEmpty": 40.0, "esFull": 80.0},  # helps
            {"esEmpty": 90.0, "esFull": 60.0},  # hurts
            {"esEmpty": 50.0, "esFull": 50.0},  # tie: not ranked
            {"esEmpty": 50.0},                  # no full decode: not ranked
        ]
        self.assertEqual(full_helps_auc([0.9, 0.1, 0.0, 0.0], records), 1.0)
        self.assertEqual(full_helps_auc([0.1, 0.9, 1.0, 1.0], records), 0.0)
        self.assertIsNone(full_helps_auc([0.5, 0.5], records[2:]))

    def test_refuses_features_of_other_ids(self) -> None:
        meta = json.loads((self.tmp / "features" / "meta.json").read_text())
        meta["controlTokens"]["<NEED>"] = 7
        (self.tmp / "features" / "meta.json").write_text(json.dumps(meta))
        with self.assertRaisesRegex(AssertionError, "other control ids"):
            train(self.tmp, "--epochs", "1")


if __name__ == "__main__":
    unittest.main()
