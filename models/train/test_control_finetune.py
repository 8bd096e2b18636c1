"""Unit tests of the control fine-tune (control_finetune.py) and the Qwen2 GGUF loader
(gguf_weights.py) on tiny random Qwen2-shaped models, where the answers are known."""
from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

from control_finetune import Tuner, run_batch, train_epoch
from finetune_data import instance_sequences
from model import LlamaModel, ModelConfig, apply_rope, gguf_tensors, rope_tables

HERE = Path(__file__).resolve().parent
VOCAB = 64
IDS = {"need": 50, "done": 51, "keep": 52, "drop": 53}
CONTROL = list(range(50, 60))
TINY = dict(vocab_size=VOCAB, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, ff_dim=64, context_length=128,
            rope_theta=1e6, tie_embeddings=False, attention_bias=True, rope_neox=True)

try:
    import gguf  # noqa: F401  (llama.cpp's reader; CI installs it, .ci/run)
    HAS_GGUF = True
except ImportError:
    HAS_GGUF = False


def record(need: bool, split: str = "train", seed: int = 0) -> dict:
    """A synthetic instance: token 7 in the trigger prompt means NEED; a candidate holding token 9 is kept."""
    rng = random.Random(seed)
    trigger = [rng.randrange(10, 40) for _ in range(12)] + ([7] if need else [8]) + [rng.randrange(10, 40)]
    steps, keep = [], []
    if need:
        for i in range(3):
            kept = rng.random() < 0.5
            body = [rng.randrange(10, 40) for _ in range(5)] + [9 if kept else 6]
            steps.append(([] if i == 0 else [IDS["keep"] if keep[-1] else IDS["drop"]]) + [54] + body + [55])
            keep.append(kept)
    return {"id": f"r{seed}", "repository": "p", "split": split, "kind": "line", "retrieval": "need" if need else "done",
            "keep": keep, "esEmpty": 50.0, "esFull": 60.0, "trigger": trigger, "generation": [],
            "y": [rng.randrange(10, 40) for _ in range(4)], "selection": steps}


class SequencesTest(unittest.TestCase):
    def test_decisions_sit_where_the_server_reads_them(self):
        r = record(True, seed=3)
        r["generation"] = [41, 42]
        first, selection = instance_sequences(r, IDS)
        t = len(r["trigger"])
        self.assertEqual(first.tokens, r["trigger"] + [41, 42] + r["y"][:-1])
        self.assertEqual(first.trigger, [(t - 1, IDS["need"])])
        # y_0 is predicted after the no-retrieval prompt's last token, y_k after y_{k-1}.
        self.assertEqual(first.completion, [(t + 1 + k, y) for k, y in enumerate(r["y"])])
        ends = np.cumsum([len(s) for s in r["selection"]]) + t - 1
        self.assertEqual([p for p, _ in selection.selection], ends.tolist())
        self.assertEqual([q for _, q in selection.selection], [IDS["keep"] if k else IDS["drop"] for k in r["keep"]])
        # Each step after the first opens with the previous decision, teacher-forced.
        for step, kept in zip(r["selection"][1:], r["keep"]):
            self.assertEqual(step[0], IDS["keep"] if kept else IDS["drop"])

    def test_the_completion_ends_with_the_end_token(self):
        r = record(False, seed=4)
        r["end"] = 63
        (first,) = instance_sequences(r, IDS)
        t = len(r["trigger"])
        self.assertEqual(first.tokens, r["trigger"] + r["y"])
        self.assertEqual(first.completion[-1], (t - 1 + len(r["y"]), 63))

    def test_the_paper_f2_reads_y_after_the_verified_evidence(self):
        r = record(True, seed=5)
        r["end"] = 63
        r["evidence"] = [30, 31, 32, 33, 34, 35]
        decide, completion, selection = instance_sequences(r, IDS, "evidence")
        t = len(r["trigger"])
        self.assertEqual(decide.tokens, r["trigger"])
        self.assertEqual((decide.trigger, decide.completion), ([(t - 1, IDS["need"])], []))
        self.assertEqual(selection.selection[0][0], t - 1 + len(r["selection"][0]))
        self.assertEqual(completion.tokens, r["evidence"] + r["y"])
        # y_0 is predicted after the evidence prompt's last token; the end token closes it.
        self.assertEqual(completion.completion, [(5 + k, y) for k, y in enumerate(r["y"] + [63])])
        # The default, and an instance without evidence, read Y after the no-retrieval prompt.
        self.assertEqual(len(instance_sequences(r, IDS)), 2)
        self.assertEqual(instance_sequences(record(False, seed=5), IDS, "evidence")[0].completion[0][0], t - 1)

    def test_generation_only_keeps_the_passes_that_read_y_and_no_decision(self):
        r = record(True, seed=6)
        r["evidence"] = [30, 31, 32]
        (completion,) = instance_sequences(r, IDS, "evidence", generation_only=True)
        self.assertEqual(completion.tokens, r["evidence"] + r["y"][:-1])
        self.assertEqual((completion.trigger, completion.selection), ([], []))
        self.assertEqual(completion.completion, instance_sequences(r, IDS, "evidence")[1].completion)
        # Y read after the no-retrieval prompt: the same pass, without its trigger position.
        (done,) = instance_sequences(record(False, seed=6), IDS, "evidence", generation_only=True)
        self.assertEqual((done.trigger, len(done.completion)), ([], 4))

    def test_a_done_instance_has_one_pass(self):
        passes = instance_sequences(record(False), IDS)
        self.assertEqual(len(passes), 1)
        self.assertEqual(passes[0].trigger[0][1], IDS["done"])


class Qwen2GraphTest(unittest.TestCase):
    def test_neox_rope_rotates_halves(self):
        cos, sin = rope_tables(8, 4, 10000.0)
        x = torch.randn(1, 4, 1, 8)
        out = apply_rope(x, cos, sin, neox=True)
        first, second = x[0, 2, 0, :4], x[0, 2, 0, 4:]
        expected = torch.cat((first * cos[2] - second * sin[2], first * sin[2] + second * cos[2]))
        torch.testing.assert_close(out[0, 2, 0], expected)
        self.assertFalse(torch.allclose(out, apply_rope(x, cos, sin, neox=False)))

    def test_biases_are_named_as_llama_cpp_names_them(self):
        names = [name for name, _ in gguf_tensors(LlamaModel(ModelConfig(**TINY)))]
        self.assertIn("blk.1.attn_q.bias", names)
        self.assertIn("blk.1.attn_v.bias", names)
        self.assertIn("output.weight", names)


class TunerTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.model = LlamaModel(ModelConfig(**TINY))
        self.records = [record(i % 2 == 0, seed=i) for i in range(16)]

    def test_lora_starts_at_the_model_and_leaves_it_frozen(self):
        passes = instance_sequences(self.records[0], IDS)
        with torch.no_grad():
            reference = self.model.forward(torch.tensor([passes[0].tokens]))[0, [p for p, _ in passes[0].completion]]
        frozen = [(p, p.detach().clone()) for p in self.model.parameters()]  # LoRA wraps these same tensors
        tuner = Tuner(self.model, CONTROL, "lora", rank=4, alpha=8.0)
        with torch.no_grad():
            _, logits, _, _ = run_batch(tuner, [passes[0]], "cpu", autocast=False)
        torch.testing.assert_close(logits[1:], reference, atol=1e-5, rtol=1e-5)
        optimizer = torch.optim.AdamW([p for p in tuner.parameters() if p.requires_grad], lr=1e-2)
        losses = [train_epoch(tuner, optimizer, self.records, IDS, "cpu", False, 4096, random.Random(0)) for _ in range(15)]
        self.assertLess(losses[-1], losses[0] * 0.8)
        for param, start in frozen:
            self.assertTrue(torch.equal(param, start))

    def test_full_mode_trains_the_network(self):
        before = self.model.layers[0].ffn.w_up.weight.clone()
        tuner = Tuner(self.model, CONTROL, "full", rank=0, alpha=0.0)
        optimizer = torch.optim.AdamW(tuner.parameters(), lr=1e-3)
        train_epoch(tuner, optimizer, self.records, IDS, "cpu", False, 4096, random.Random(0))
        self.assertFalse(torch.equal(before, self.model.layers[0].ffn.w_up.weight))

    def test_padding_in_a_batch_changes_no_logit(self):
        tuner = Tuner(self.model, CONTROL, "lora", rank=4, alpha=8.0).eval()
        short, long = instance_sequences(self.records[1], IDS)[0], instance_sequences(self.records[0], IDS)[1]
        with torch.no_grad():
            _, together, _, _ = run_batch(tuner, [short, long], "cpu", autocast=False)
            _, alone_short, _, _ = run_batch(tuner, [short], "cpu", autocast=False)
            _, alone_long, _, _ = run_batch(tuner, [long], "cpu", autocast=False)
        torch.testing.assert_close(together, torch.cat((alone_short, alone_long)), atol=1e-5, rtol=1e-5)


@unittest.skipUnless(HAS_GGUF or os.environ.get("REPOSHAPLEY_REQUIRE_GGUF_PY") == "1",
                     "the gguf package is missing (pip install gguf); CI requires it")
class GgufTest(unittest.TestCase):
    def write_gguf(self, path: Path, model: LlamaModel) -> None:
        from gguf import GGMLQuantizationType, GGUFWriter
        from gguf.quants import quantize

        config = model.config
        writer = GGUFWriter(str(path), "qwen2")
        writer.add_uint32("qwen2.embedding_length", config.d_model)
        writer.add_uint32("qwen2.block_count", config.n_layers)
        writer.add_uint32("qwen2.attention.head_count", config.n_heads)
        writer.add_uint32("qwen2.attention.head_count_kv", config.n_kv_heads)
        writer.add_uint32("qwen2.feed_forward_length", config.ff_dim)
        writer.add_float32("qwen2.rope.freq_base", config.rope_theta)
        writer.add_float32("qwen2.attention.layer_norm_rms_epsilon", config.norm_eps)
        for name, value in gguf_tensors(model):
            array = value.detach().numpy().astype(np.float32)
            if name.endswith("ffn_up.weight"):  # one quantized kind, as the pulled file has
                writer.add_tensor(name, quantize(array, GGMLQuantizationType.Q8_0), raw_dtype=GGMLQuantizationType.Q8_0)
            else:
                writer.add_tensor(name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()

    def test_loads_every_weight_and_runs_the_cli(self):
        from gguf_weights import load_qwen2

        torch.manual_seed(1)
        source = LlamaModel(ModelConfig(**TINY))
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            self.write_gguf(tmp / "tiny.gguf", source)
            loaded = load_qwen2(tmp / "tiny.gguf", context_length=128)
            self.assertAlmostEqual(loaded.config.norm_eps, source.config.norm_eps, delta=1e-9)  # stored as float32
            self.assertEqual(dataclasses.replace(loaded.config, norm_eps=source.config.norm_eps), source.config)
            for (name, want), (_, got) in zip(gguf_tensors(source), gguf_tensors(loaded)):
                tolerance = 0.02 if name.endswith("ffn_up.weight") else 0.0
                torch.testing.assert_close(got, want.detach(), atol=tolerance, rtol=0.0, msg=name)

            texts = self.write_pack_and_sequences(tmp, 8)
            result = subprocess.run([sys.executable, "control_finetune.py", "--model", str(tmp / "tiny.gguf"),
                                     "--sequences", str(tmp / "sequences.jsonl"), "--pack", str(tmp / "pack"),
                                     "--out", str(tmp / "out"), "--epochs", "2", "--device", "cpu", "--threads", "1"],
                                    cwd=HERE, capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            metrics = json.loads((tmp / "out" / "metrics.json").read_text())
            self.assertEqual([h["epoch"] for h in metrics["history"]], [0, 1, 2])
            self.assertEqual(metrics["history"][0]["val"]["instances"], 2)
            rows = np.fromfile(tmp / "out" / "rows.f32", dtype="<f4")
            self.assertEqual(rows.size, len(texts) * 2 * TINY["d_model"])
            adapters = torch.load(tmp / "out" / "lora.pt")
            self.assertEqual(adapters["blk.0.attn_q.weight.lora_a"].shape, (8, TINY["d_model"]))
            from gguf import GGUFReader
            adapter = GGUFReader(str(tmp / "out" / "lora.gguf"))
            self.assertEqual(adapter.fields["general.type"].contents(), "adapter")
            self.assertEqual(adapter.fields["general.architecture"].contents(), "qwen2")
            self.assertEqual(adapter.fields["adapter.lora.alpha"].contents(), 8.0)  # the rank: B carries the scale
            shapes = {t.name: [int(d) for d in t.shape] for t in adapter.tensors}  # ggml order
            kv = TINY["n_kv_heads"] * TINY["d_model"] // TINY["n_heads"]
            self.assertEqual(shapes["blk.1.attn_k.weight.lora_a"], [TINY["d_model"], 8])
            self.assertEqual(shapes["blk.1.attn_k.weight.lora_b"], [8, kv])
            b = next(t for t in adapter.tensors if t.name == "blk.1.attn_k.weight.lora_b")
            np.testing.assert_allclose(np.array(b.data).reshape(kv, 8), adapters["blk.1.attn_k.weight.lora_b"].numpy())

    @staticmethod
    def write_pack_and_sequences(tmp: Path, count: int) -> list[str]:
        """tmp/pack (the control tokens at ids 50..59) and `count` synthetic instances, every fourth
        for validation; returns the tokens' texts."""
        (tmp / "pack").mkdir()
        texts = ["<NEED>", "<DONE>", "<KEEP>", "<DROP>", "<SELECT>"] + [f"<C_{i}>" for i in range(1, 6)]
        (tmp / "pack" / "pack.json").write_text(json.dumps({"trigger": "vocabulary", "tokens": [
            {"text": text, "id": 50 + i} for i, text in enumerate(texts)]}))
        lines = [record(i % 2 == 0, "val" if i % 4 == 3 else "train", seed=i) for i in range(count)]
        (tmp / "sequences.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
        return texts

    def write_run_inputs(self, tmp: Path) -> list[str]:
        """A tiny model, pack and sequences in tmp; the CLI's arguments for them."""
        torch.manual_seed(1)
        self.write_gguf(tmp / "tiny.gguf", LlamaModel(ModelConfig(**TINY)))
        self.write_pack_and_sequences(tmp, 12)
        return [sys.executable, "control_finetune.py", "--model", str(tmp / "tiny.gguf"), "--sequences", str(tmp / "sequences.jsonl"),
                "--pack", str(tmp / "pack"), "--epochs", "2", "--max-tokens", "100", "--device", "cpu", "--threads", "1"]

    def test_a_stopped_run_resumes_batch_for_batch(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            command = self.write_run_inputs(tmp)

            def run(out: str, *extra: str) -> subprocess.CompletedProcess:
                return subprocess.run(command + ["--out", str(tmp / out), *extra], cwd=HERE, capture_output=True, text=True, timeout=300)

            def history(out: str) -> list[float]:
                return [h["val"]["loss"] for h in json.loads((tmp / out / "metrics.json").read_text())["history"]]

            whole = run("whole")
            self.assertEqual(whole.returncode, 0, whole.stderr)
            # Stopped after every batch (--stop-after 1e-9), each run resuming the last: as many runs as
            # batches, then one that validates and writes the outputs.
            stops = 0
            while not (tmp / "pieces" / "metrics.json").exists():
                piece = run("pieces", "--stop-after", "1e-9")
                self.assertEqual(piece.returncode, 0, piece.stderr)
                stops += '"stopped"' in piece.stdout
                self.assertLess(stops, 40)
            self.assertGreater(stops, 2)
            self.assertEqual((tmp / "whole" / "rows.f32").read_bytes(), (tmp / "pieces" / "rows.f32").read_bytes())
            whole_lora, pieces_lora = torch.load(tmp / "whole" / "lora.pt"), torch.load(tmp / "pieces" / "lora.pt")
            for name, value in whole_lora.items():
                self.assertTrue(torch.equal(value, pieces_lora[name]), name)
            self.assertEqual(history("whole"), history("pieces"))

            # From the weights alone (a committed checkpoint, no optimizer state): it runs to the end.
            (tmp / "committed").mkdir()
            first = run("first", "--stop-after", "1e-9")
            self.assertEqual(first.returncode, 0, first.stderr)
            # As if the stopped run had trained for 1,000 s: the epoch's train_s counts them.
            stopped = torch.load(tmp / "first" / "checkpoint.pt")
            self.assertEqual(stopped["epoch"], 1)
            stopped["epoch_train_s"] = 1000.0
            torch.save(stopped, tmp / "committed" / "checkpoint.pt")
            alone = run("alone", "--resume-from", str(tmp / "committed" / "checkpoint.pt"))
            self.assertEqual(alone.returncode, 0, alone.stderr)
            self.assertIn('"resumed"', alone.stdout)
            self.assertTrue((tmp / "alone" / "lora.gguf").exists())
            epochs = json.loads((tmp / "alone" / "metrics.json").read_text())["history"]
            self.assertGreaterEqual(epochs[1]["train_s"], 1000.0)  # epoch 0 is the initial validation
            self.assertLess(epochs[2]["train_s"], 1000.0)          # the next epoch starts from zero

            # Another run's checkpoint is refused, naming what differs.
            other = run("pieces", "--rank", "4")
            self.assertNotEqual(other.returncode, 0)
            self.assertIn("differs in rank", other.stderr)

    def test_a_run_starts_from_another_runs_weights(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            command = self.write_run_inputs(tmp)

            def run(out: str, *extra: str) -> subprocess.CompletedProcess:
                return subprocess.run(command + ["--out", str(tmp / out), "--epochs", "1", *extra],
                                      cwd=HERE, capture_output=True, text=True, timeout=300)

            def epoch0_loss(out: str) -> float:
                return json.loads((tmp / out / "metrics.json").read_text())["history"][0]["val"]["loss"]

            outputs = {}
            for name, extra in (("first", ()), ("fresh", ()), ("further", ("--init-from", str(tmp / "first" / "checkpoint.pt")))):
                result = run(name, *extra)
                self.assertEqual(result.returncode, 0, result.stderr)
                outputs[name] = result.stdout
            self.assertIn('"initialized"', outputs["further"])
            # The further run's epoch 0 validates the first run's trained weights, the fresh one's the model's.
            first_end = json.loads((tmp / "first" / "metrics.json").read_text())["history"][-1]["val"]["loss"]
            self.assertAlmostEqual(epoch0_loss("further"), first_end, places=4)
            self.assertNotAlmostEqual(epoch0_loss("further"), epoch0_loss("fresh"), places=4)

            # Weights of another rank do not fit, and are refused before training.
            other = run("other", "--rank", "4", "--init-from", str(tmp / "first" / "checkpoint.pt"))
            self.assertNotEqual(other.returncode, 0)
            self.assertIn("does not fit this run", other.stderr)


if __name__ == "__main__":
    unittest.main()
