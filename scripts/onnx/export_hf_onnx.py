#!/usr/bin/python3
"""Exports a Hugging Face decoder folder (config.json + model.safetensors, Llama / Qwen2 as our engine runs them) to
the layout of the hub's "onnx-community" repos, so a frozen agent can run it on onnxruntime (node or web):

  <out>/onnx/model.onnx        float32, Optimum's KV-cache layout (what OnnxFrozenPolicy and transformers.js read):
                               input_ids [B, T], attention_mask [B, P+T], position_ids [B, T],
                               past_key_values.{l}.key/value [B, Hkv, P, Dh]
                               -> logits [B, T, V], present.{l}.key/value [B, Hkv, P+T, Dh]   (B, T, P dynamic)
  <out>/config.json, generation_config.json, tokenizer.json, tokenizer_config.json   copied when present

Usage: /usr/bin/python3 scripts/onnx/export_hf_onnx.py MODEL_DIR [OUT_DIR] [--external-data]
  OUT_DIR defaults to MODEL_DIR. --external-data stores the weights beside the graph in onnx/model.onnx_data, the
  way large hub models ship (protobuf files stop at 2 GB); tests/fixtures/onnx-external is made this way.

The graph is scripts/golden/tiny_decoder.py's forward_with_cache (HF semantics, checked against our engine by the
golden tests), exported by make_golden.py's export_onnx_with_past, which also checks that prefill + one cached step
reproduces the full forward. Weights are read with make_golden.py's safetensors reader (F32 / F64 / F16 / BF16 files
are converted to float32 here). Needs Debian's python3-torch and python3-onnx.
"""
import json
import os
import shutil
import struct
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from make_golden import export_onnx_with_past, load_safetensors  # noqa: E402
from tiny_decoder import parameter_shapes  # noqa: E402

COPIED = ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"]
SUPPORTED = {"llama", "qwen2"}


def load_half_safetensors(path):
    """F16 / BF16 tensors (not in make_golden's reader), widened to float32."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        raw = bytearray(data[8 + n + b:8 + n + end])
        if e["dtype"] == "F16":
            t = torch.frombuffer(raw, dtype=torch.float16)
        elif e["dtype"] == "BF16":
            t = torch.frombuffer(raw, dtype=torch.bfloat16)
        else:
            raise SystemExit(f"{path}: tensor {name} has dtype {e['dtype']}; this script reads F32, F64, F16, BF16")
        out[name] = t.float().reshape(e["shape"])
    return out


def read_weights(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith(".safetensors"))
    if not files:
        raise SystemExit(f"{folder}: no *.safetensors file")
    weights = {}
    for f in files:
        path = os.path.join(folder, f)
        try:
            part = load_safetensors(path)
        except KeyError:
            part = load_half_safetensors(path)
        weights.update({k: v.float() for k, v in part.items()})
    return weights


def save_external(path):
    """Rewrite the graph at `path` with every initializer in `<path>_data` (onnx's external-data format)."""
    import onnx

    model = onnx.load(path)
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=os.path.basename(path) + "_data", size_threshold=0)


def main():
    args = [a for a in sys.argv[1:] if a != "--external-data"]
    external = "--external-data" in sys.argv
    if len(args) not in (1, 2):
        raise SystemExit(__doc__)
    folder = os.path.abspath(args[0])
    out = os.path.abspath(args[1] if len(args) == 2 else folder)
    config_path = os.path.join(folder, "config.json")
    if not os.path.exists(config_path):
        raise SystemExit(f"{folder}: config.json missing")
    with open(config_path) as f:
        cfg = json.load(f)
    if cfg.get("model_type") not in SUPPORTED:
        raise SystemExit(f"{config_path}: model_type {cfg.get('model_type')!r} is not one of {sorted(SUPPORTED)}")
    torch.set_num_threads(1)
    weights = read_weights(folder)
    expected = parameter_shapes(cfg)
    missing = [k for k in expected if k not in weights]
    if missing:
        raise SystemExit(f"{folder}: weights missing {missing[:5]}{' ...' if len(missing) > 5 else ''}")
    for name, shape in expected.items():
        if tuple(weights[name].shape) != tuple(shape):
            raise SystemExit(f"{folder}: {name} has shape {list(weights[name].shape)}, config.json implies {list(shape)}")
    params = {k: weights[k] for k in expected}

    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    path = os.path.join(out, "onnx", "model.onnx")
    ids = torch.randint(0, cfg["vocab_size"], (1, 8), generator=torch.Generator().manual_seed(1))
    kv_error = export_onnx_with_past(cfg, params, ids, path)
    assert kv_error < 1e-4, f"cached forward differs from the full forward by {kv_error:.2e}"
    if external:
        save_external(path)
    if out != folder:
        for name in COPIED:
            if os.path.exists(os.path.join(folder, name)):
                shutil.copyfile(os.path.join(folder, name), os.path.join(out, name))
    count = sum(p.numel() for p in params.values())
    print(f"wrote {path}: {count} parameters, {os.path.getsize(path)} bytes, kv-cache vs full forward {kv_error:.1e}")


if __name__ == "__main__":
    main()
