"""Unit tests of the trainer (run by models/train/train.test.ts through vitest, or directly:
`/usr/bin/python3 -m unittest discover -s models/train -p 'test_*.py'`)."""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(HERE))

from checkpoint import load_model, save_weights  # noqa: E402
from data import CopyDrills, Packer, ShardSet, copy_probe_windows, write_synthetic_shards  # noqa: E402
from model import LlamaModel, ModelConfig, apply_rope, rope_tables  # noqa: E402
import precision  # noqa: E402
from train import weighted_loss  # noqa: E402

ENV = {**os.environ, "GLIBC_TUNABLES": "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736",
       "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
TINY = ["--size", "tiny", "--seq-len", "32", "--batch-size", "2", "--grad-accum", "2", "--warmup-steps", "2",
        "--total-tokens", "2000", "--threads", "1", "--eval-every", "3", "--val-tokens", "256", "--log-every", "1"]


def run_train(run_dir: Path, data: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "train.py"), "--run", "t", "--run-dir", str(run_dir),
                           "--data", str(data), *TINY, *extra], env=ENV, capture_output=True, text=True, timeout=300)


def log_events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "train.jsonl").read_text().splitlines()]


class RopeTest(unittest.TestCase):
    def test_matches_llama_cpp_normal_mode(self) -> None:
        """ggml_rope mode 0: theta_i = pos * base^(-2i/d) rotates (x[2i], x[2i+1])."""
        d, t, base = 8, 5, 10000.0
        x = torch.randn(1, t, 2, d)
        cos, sin = rope_tables(d, t, base)
        got = apply_rope(x, cos, sin)
        want = x.clone()
        for pos in range(t):
            for i in range(0, d, 2):
                theta = pos * base ** (-i / d)
                x0, x1 = x[0, pos, :, i], x[0, pos, :, i + 1]
                want[0, pos, :, i] = x0 * math.cos(theta) - x1 * math.sin(theta)
                want[0, pos, :, i + 1] = x0 * math.sin(theta) + x1 * math.cos(theta)
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


class SyntheticShardsCase(unittest.TestCase):
    """8 synthetic sequences of 9..37 tokens (vocabulary 50) in a temporary index."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.index = write_synthetic_shards(self.tmp.name, vocab_size=50, sequences=8, length=37, seed=3)

    def tearDown(self) -> None:
        self.tmp.cleanup()


class DataTest(SyntheticShardsCase):

    def epoch_documents(self, seq_len: int) -> list[list[int]]:
        """Token lists of the documents of one unshuffled epoch, checking the window invariants."""
        data = ShardSet(self.index, "train")
        packer = Packer(data, seq_len=seq_len, seed=1, shuffle=False)
        documents: list[list[int]] = []
        while packer.epoch == 0:
            tokens, classes, docs = packer.next_window()
            self.assertTrue(np.all(classes[docs == -1] == 0))  # padding is never a target
            for doc in sorted(set(docs.tolist()) - {-1}):
                where = np.flatnonzero(docs == doc)
                self.assertTrue(np.all(np.diff(where) == 1))  # contiguous
                self.assertEqual(classes[where[0]], 0)  # the first token is never a target
                documents.append(tokens[where].tolist())
        return documents

    def sequences(self) -> list[list[int]]:
        data = ShardSet(self.index, "train")
        return [data.read(s, 0, s.length)[0].astype(int).tolist() for s in data.spans]

    def test_whole_sequences_each_once_per_epoch(self) -> None:
        documents = self.epoch_documents(seq_len=40)  # sequences are 9..37 tokens: none is split
        self.assertEqual(sorted(documents), sorted(self.sequences()))

    def test_long_sequences_are_cut_into_overlapping_pieces(self) -> None:
        with unittest.mock.patch("data.LOOKAHEAD", 0):  # keep the order, to reassemble pieces
            documents = self.epoch_documents(seq_len=8)
        targets = [t for d in documents for t in d[1:]]
        self.assertEqual(targets, [t for s in self.sequences() for t in s[1:]])

    def test_documents_do_not_attend_to_each_other(self) -> None:
        torch.manual_seed(0)
        model = LlamaModel(ModelConfig(vocab_size=50, d_model=32, n_layers=2, n_heads=2, ff_dim=64, context_length=32))
        model.eval()
        a, b = torch.randint(0, 50, (1, 7)), torch.randint(0, 50, (1, 9))
        packed = torch.cat([a, b], dim=1)
        docs = torch.tensor([[0] * 7 + [1] * 9])
        with torch.no_grad():
            together = model(packed, docs)
            torch.testing.assert_close(together[:, :7], model(a), atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(together[:, 7:], model(b), atol=1e-5, rtol=1e-5)  # as if at position 0

    def test_restored_state_continues_identically(self) -> None:
        data = ShardSet(self.index, "train")
        a = Packer(data, seq_len=20, seed=5)
        for _ in range(23):  # past an epoch boundary
            a.next_window()
        self.assertGreater(a.epoch, 0)
        b = Packer(data, seq_len=20, seed=5)
        b.restore(json.loads(json.dumps(a.state())))
        for _ in range(10):
            for x, y in zip(a.next_window(), b.next_window()):
                np.testing.assert_array_equal(x, y)

    def test_splits_are_disjoint(self) -> None:
        train, val = ShardSet(self.index, "train"), ShardSet(self.index, "val")
        self.assertEqual(len(train.spans) + len(val.spans), 8)
        self.assertEqual({train.shards[s.shard].split for s in train.spans}, {"train"})


class CopyDrillTest(SyntheticShardsCase):
    def drills(self, fraction: float) -> CopyDrills:
        return CopyDrills(Packer(ShardSet(self.index, "train"), seq_len=300, seed=5), fraction, ordinary_tokens=40, seed=5)

    @staticmethod
    def is_drill(window: tuple[np.ndarray, np.ndarray, np.ndarray]) -> bool:
        """Packed windows hold several short documents (and padding); a drill is one document."""
        return bool(np.all(window[2] == 0))

    def test_drills_repeat_one_string_with_loss_on_the_repetitions_only(self) -> None:
        drills = self.drills(0.5)
        windows = [drills.next_window() for _ in range(40)]
        made = [w for w in windows if self.is_drill(w)]
        self.assertTrue(10 <= len(made) <= 30, len(made))
        for tokens, classes, _ in made:
            period = int(np.argmax(classes > 0))
            self.assertTrue(16 <= period <= 256)
            np.testing.assert_array_equal(tokens[period:], tokens[:len(tokens) - period])  # periodic
            self.assertTrue(np.all(classes[:period] == 0) and np.all(classes[period:] == 1))
            self.assertLess(int(tokens.max()), 40)  # ordinary tokens only

    def test_no_drills_leaves_the_packer_stream_unchanged(self) -> None:
        plain = Packer(ShardSet(self.index, "train"), seq_len=300, seed=5)
        drills = self.drills(0.0)
        for _ in range(5):
            for x, y in zip(plain.next_window(), drills.next_window()):
                np.testing.assert_array_equal(x, y)

    def test_restored_state_draws_the_same_drills_and_sequences(self) -> None:
        a = self.drills(0.3)
        for _ in range(17):
            a.next_window()
        b = self.drills(0.3)
        b.restore(json.loads(json.dumps(a.state())))
        for _ in range(12):
            for x, y in zip(a.next_window(), b.next_window()):
                np.testing.assert_array_equal(x, y)

    def test_copy_probes_show_a_string_twice_and_score_the_second_showing(self) -> None:
        probes = copy_probe_windows(ordinary_tokens=40, count=3, period=10)
        self.assertEqual(len(probes), 3)
        for tokens, classes, docs in probes:
            np.testing.assert_array_equal(tokens[:10], tokens[10:])
            self.assertEqual(classes.tolist(), [0] * 11 + [1] * 9)
            self.assertTrue(np.all(docs == 0))


class LossTest(unittest.TestCase):
    def test_class_weights(self) -> None:
        torch.manual_seed(0)
        model = LlamaModel(ModelConfig(vocab_size=40, d_model=32, n_layers=1, n_heads=2, ff_dim=64, context_length=16))
        tokens = torch.randint(0, 40, (1, 9))
        classes = torch.tensor([[0, 1, 0, 1, 2, 1, 0, 1, 2]], dtype=torch.uint8)
        weights = torch.tensor([0.0, 1.0, 2.0] + [2.0] * 253)
        loss, nll, count = weighted_loss(model, tokens, classes, weights, autocast=False)
        self.assertEqual(count.item(), 6)  # targets 1..8 with class > 0
        logits = model(tokens[:, :-1]).float()
        per_token = torch.nn.functional.cross_entropy(logits[0], tokens[0, 1:], reduction="none")
        # Class 0 adds nothing, class 2 counts twice; normalized by the supervised-token count.
        expected = (per_token * torch.tensor([1, 0, 1, 2, 1, 0, 1, 2])).sum() / 6
        torch.testing.assert_close(loss, expected)
        unweighted = (per_token * torch.tensor([1, 0, 1, 1, 1, 0, 1, 1])).sum()
        torch.testing.assert_close(nll, unweighted.detach())

    def test_per_sequence_mean_weighs_each_packed_sequence_alike(self) -> None:
        torch.manual_seed(0)
        model = LlamaModel(ModelConfig(vocab_size=40, d_model=32, n_layers=1, n_heads=2, ff_dim=64, context_length=16))
        tokens = torch.randint(0, 40, (2, 9))
        # Row 0: doc 0 supervises 4 targets, doc 1 one; row 1: doc 0 two targets, then padding.
        classes = torch.tensor([[0, 1, 1, 1, 1, 0, 0, 1, 0], [0, 1, 1, 0, 0, 0, 0, 0, 0]], dtype=torch.uint8)
        docs = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, -1, -1, -1, -1, -1]])
        weights = torch.tensor([0.0, 1.0] + [1.0] * 254)
        loss, _, count = weighted_loss(model, tokens, classes, weights, autocast=False, docs=docs, per_sequence=True)
        self.assertEqual(count.item(), 7)
        logits = model(tokens[:, :-1], docs[:, :-1]).float()
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten(), reduction="none").view(2, 8)
        expected = (nll[0, 0:4].mean() + nll[0, 6] + nll[1, 0:2].mean()) / 3
        torch.testing.assert_close(loss, expected)
        token_mean, _, _ = weighted_loss(model, tokens, classes, weights, autocast=False, docs=docs)
        torch.testing.assert_close(token_mean, (nll[0, 0:4].sum() + nll[0, 6] + nll[1, 0:2].sum()) / 7)


class PrecisionTest(unittest.TestCase):
    def choose(self, fp32_seconds: float, bf16_seconds: float) -> str:
        timings = {torch.float32: fp32_seconds, torch.bfloat16: bf16_seconds}
        with unittest.mock.patch.object(precision, "matmul_seconds", lambda dtype, _device: timings[dtype]):
            chosen, why = precision.resolve_precision("auto", "cpu")
        self.assertEqual(why["chosen"], chosen)
        return chosen

    def test_auto_takes_bf16_only_where_it_is_clearly_faster(self) -> None:
        self.assertEqual(self.choose(3.0, 1.0), "bf16")  # AVX512-BF16 / AMX
        self.assertEqual(self.choose(1.0, 15.0), "fp32")  # AVX2 only
        self.assertEqual(self.choose(1.1, 1.0), "fp32")  # within the margin: keep fp32's accuracy

    def test_an_explicit_choice_is_kept_without_measuring(self) -> None:
        with unittest.mock.patch.object(precision, "matmul_seconds", side_effect=AssertionError("measured")):
            self.assertEqual(precision.resolve_precision("bf16", "cpu")[0], "bf16")
            self.assertEqual(precision.resolve_precision("fp32", "cpu")[0], "fp32")

    def test_the_probe_measures_both_precisions(self) -> None:
        self.assertGreater(precision.matmul_seconds(torch.float32, "cpu"), 0)
        self.assertGreater(precision.matmul_seconds(torch.bfloat16, "cpu"), 0)


class TrainerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        self.data = write_synthetic_shards(root / "shards", vocab_size=64, sequences=16, length=80, seed=1)
        self.root = root

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_resume_is_bitwise_identical_to_an_uninterrupted_run(self) -> None:
        straight, split = self.root / "straight", self.root / "split"
        self.assertEqual(run_train(straight, self.data, "--max-steps", "6").returncode, 0)
        first = run_train(split, self.data, "--max-steps", "3")
        self.assertEqual(first.returncode, 0, first.stderr)
        second = run_train(split, self.data, "--max-steps", "6")
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn("resume", [e["event"] for e in log_events(split)])
        a, _ = load_model(straight / "step-00000006.pt")
        b, _ = load_model(split / "step-00000006.pt")
        for (name, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items()):
            self.assertTrue(torch.equal(p, q), name)
        self.assertEqual(sorted(p.name for p in split.glob("step-*.pt")), ["step-00000003.pt", "step-00000006.pt"])
        self.assertTrue((split / "best.pt").exists())

    def test_sigterm_checkpoints_and_exits_cleanly(self) -> None:
        run_dir = self.root / "term"
        process = subprocess.Popen([sys.executable, str(HERE / "train.py"), "--run", "t", "--run-dir", str(run_dir),
                                    "--data", str(self.data), *TINY, "--max-steps", "100000"],
                                   env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in process.stdout:  # wait until training is under way
            if '"event": "train"' in line:
                break
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, stderr)
        events = log_events(run_dir)
        self.assertEqual(events[-1]["event"], "stop")
        self.assertEqual(events[-1]["reason"], "SIGTERM")
        self.assertTrue(list(run_dir.glob("step-*.pt")))

    def test_init_weights_starts_from_a_committed_weights_file(self) -> None:
        torch.manual_seed(3)
        model = LlamaModel(ModelConfig(vocab_size=64, d_model=32, n_layers=1, n_heads=2, ff_dim=64, context_length=64))
        weights = self.root / "w.pt"
        save_weights(model, weights, {"tokens_seen": 1234, "step": 9})
        loaded, meta = load_model(weights)
        self.assertEqual(meta["tokens_seen"], 1234)
        self.assertEqual(loaded.config, model.config)
        for (name, p), (_, q) in zip(model.state_dict().items(), loaded.state_dict().items()):
            torch.testing.assert_close(p, q, atol=1e-3, rtol=1e-3, msg=name)  # fp16 round trip
        run_dir = self.root / "init"
        result = run_train(run_dir, self.data, "--init-weights", str(weights), "--max-steps", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        start = log_events(run_dir)[0]
        self.assertEqual(start["config"]["d_model"], 32)
        stop = log_events(run_dir)[-1]
        self.assertEqual(stop["step"], 2)
        self.assertGreater(stop["tokens"], 1234)  # continues the weights file's count

    def test_a_token_limit_the_init_weights_already_reached_is_refused(self) -> None:
        model = LlamaModel(ModelConfig(vocab_size=64, d_model=32, n_layers=1, n_heads=2, ff_dim=64, context_length=64))
        weights = self.root / "seen.pt"
        save_weights(model, weights, {"tokens_seen": 5000, "step": 9})
        run_dir = self.root / "reached"
        result = run_train(run_dir, self.data, "--init-weights", str(weights), "--max-tokens", "4000")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--max-tokens 4000 is already reached", result.stderr)
        self.assertIn("--max-steps", result.stderr)


if __name__ == "__main__":
    unittest.main()


class DeviceDataTest(unittest.TestCase):
    """device_data.py: shards survive pack/unpack byte for byte, weights survive split/join."""

    def test_pack_unpack_round_trip(self) -> None:
        import device_data
        with tempfile.TemporaryDirectory() as tmp:
            index = Path(write_synthetic_shards(Path(tmp) / "shards", 300, sequences=8, length=50))
            device_data.pack(index, Path(tmp) / "packed")
            device_data.unpack(Path(tmp) / "packed", Path(tmp) / "back")
            original = ShardSet(index, None)
            restored = ShardSet(Path(tmp) / "back" / "index.json", None)
            self.assertEqual(original.total_tokens, restored.total_tokens)
            for shard, copy in zip(original.shards, restored.shards):
                self.assertTrue(np.array_equal(shard.tokens, copy.tokens))
                self.assertTrue(np.array_equal(shard.mask, copy.mask))

    def test_split_join_and_damage_detection(self) -> None:
        import device_data
        with tempfile.TemporaryDirectory() as tmp:
            data = os.urandom(2 * 1024 * 1024 + 17)
            source = Path(tmp) / "w.pt"
            source.write_bytes(data)
            with unittest.mock.patch.object(device_data, "PIECE_BYTES", 1024 * 1024):
                device_data.split(source, Path(tmp) / "out")
            self.assertEqual(len(list((Path(tmp) / "out").glob("w.pt.part*"))), 3)
            device_data.join(Path(tmp) / "out", Path(tmp) / "w.pt")
            self.assertEqual((Path(tmp) / "w.pt").read_bytes(), data)
            (Path(tmp) / "out" / "w.pt.part01").unlink()
            with self.assertRaises(SystemExit):
                device_data.join(Path(tmp) / "out", Path(tmp) / "w.pt")
