#!/usr/bin/python3
"""Writes the float64 golden fixtures under tests/fixtures/golden/<name>/, and copies the GPU self-test's two into
public/gpu-check/<name>/ (run with Debian's python3-torch:
`/usr/bin/python3 scripts/golden/make_golden.py`; it is not needed in CI, the fixtures are committed).

Per fixture folder:
  config.json          Hugging Face style (LlamaForCausalLM / Qwen2ForCausalLM)
  model.safetensors    F32 weights with HF names (a tied lm_head is not stored, as HF does)
  golden.safetensors   F64 (input_ids I64):
      input_ids [B, T], loss_mask [B, T-1], advantages [B],
      logits [B, T, V], token_logprobs [B, T-1] (log p(token t+1 | tokens <= t)), token_entropy [B, T-1],
      loss [1] = sum(loss_mask * advantages[:, None] * token_logprobs),
      grad.<param> = d loss / d param for every parameter (tied: the embedding's gradient includes the head's)
  model.onnx           the same model in float32, input_ids [B, T] -> logits [B, T, V] (dynamic B, T), opset 14
  model_kv.onnx        the same with a KV cache in Optimum's layout (input_ids, attention_mask, position_ids,
                       past_key_values.{l}.key/value -> logits, present.{l}.key/value), for decode benchmarks

Benchmark models (not committed; same files minus golden.safetensors, random weights):
  /usr/bin/python3 scripts/golden/make_golden.py --bench DIR [--preset small|qwen2.5-0.5b] [--layers N]
  /usr/bin/python3 scripts/golden/make_golden.py --bench DIR --from HF_FOLDER   (the same files for a float32 model, e.g. tiny-rema)

The oracle computes in float64 from exactly the float32 weights in model.safetensors. The script checks itself:
central finite differences on a few parameters, float32-vs-float64 agreement, and a reread of every file it wrote.
"""
import json
import os
import shutil
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiny_decoder import LogitsOnly, WithPast, forward, head_dim, init_parameters  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "golden")
# the fixtures the GPU self-test ships with the page and the CLI (src/engine/gpu-check/golden-fixture.ts), copied there
SHIPPED = os.path.join(ROOT, "public", "gpu-check")
SHIPPED_FIXTURES = ("llama-gqa4-headdim", "qwen2-tied-gqa2")

# ---------------------------------------------------------------------------------------------------------------
# The fixture models: llama untied (GQA ratio 1), qwen2 with biases and tied head (GQA 2), llama with an explicit
# head_dim != hidden/heads (GQA 4, eps 1e-5, theta 5e5), and a SmolLM-style tied llama with a 5000-token vocabulary
# so that vocabulary chunking runs over several chunks.


def llama_config(**kw):
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "attention_bias": False,
        "mlp_bias": False,
        "hidden_act": "silu",
        "bos_token_id": 1,
        "eos_token_id": 2,
        "max_position_embeddings": 128,
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
        "rope_scaling": None,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
    }
    cfg.update(kw)
    return cfg


def qwen2_config(**kw):
    cfg = {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_act": "silu",
        "bos_token_id": 1,
        "eos_token_id": 2,
        "max_position_embeddings": 128,
        "max_window_layers": 2,
        "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0,
        "sliding_window": 128,
        "use_sliding_window": False,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
    }
    cfg.update(kw)
    return cfg


FIXTURES = {
    "llama-untied-mha": dict(
        seed=11, B=2, T=12,
        config=llama_config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=4),
    ),
    "qwen2-tied-gqa2": dict(
        seed=22, B=2, T=12,
        config=qwen2_config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2),
    ),
    "llama-gqa4-headdim": dict(
        seed=33, B=3, T=9,
        config=llama_config(vocab_size=48, hidden_size=24, intermediate_size=40, num_hidden_layers=2,
                            num_attention_heads=8, num_key_value_heads=2, head_dim=4, rms_norm_eps=1e-5,
                            rope_theta=500000.0),
    ),
    "smollm-tied-bigvocab": dict(
        seed=44, B=2, T=8,
        config=llama_config(vocab_size=5000, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                            num_attention_heads=2, num_key_value_heads=1, tie_word_embeddings=True,
                            rms_norm_eps=1e-5, rope_theta=100000.0),
    ),
}

# ---------------------------------------------------------------------------------------------------------------
# safetensors (written by hand: there is no python3-safetensors in Debian bookworm)

DTYPES = {torch.float64: ("F64", "<d", 8), torch.float32: ("F32", "<f", 4), torch.int64: ("I64", "<q", 8)}


def save_safetensors(path, tensors, metadata=None):
    """Widest dtype first, header padded with spaces to 8 bytes: every tensor is aligned to its element size."""
    order = sorted(tensors, key=lambda n: (-DTYPES[tensors[n].dtype][2], n))
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in order:
        t = tensors[name].contiguous()
        dtype, fmt, size = DTYPES[t.dtype]
        flat = t.reshape(-1).tolist()
        blob = struct.pack("<%d%s" % (len(flat), fmt[1]), *flat)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text.encode())
        for blob in blobs:
            f.write(blob)


def load_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    inverse = {v[0]: (k, v[1], v[2]) for k, v in DTYPES.items()}
    out = {}
    for name, e in header.items():
        torch_dtype, fmt, size = inverse[e["dtype"]]
        b, end = e["data_offsets"]
        count = (end - b) // size
        assert (8 + n + b) % size == 0, f"{path}: {name} misaligned"
        values = struct.unpack("<%d%s" % (count, fmt[1]), data[8 + n + b:8 + n + end])
        out[name] = torch.tensor(values, dtype=torch_dtype).reshape(e["shape"])
    return out


# ---------------------------------------------------------------------------------------------------------------


def make_inputs(cfg, B, T, seed):
    g = torch.Generator().manual_seed(seed + 1000)
    input_ids = torch.randint(0, cfg["vocab_size"], (B, T), generator=g, dtype=torch.int64)
    prompt = 3
    loss_mask = torch.zeros(B, T - 1, dtype=torch.float64)
    loss_mask[:, prompt - 1:] = 1.0  # position t scores token t+1: the response starts at token `prompt`
    loss_mask[-1, -3:] = 0.0  # the last sequence ends early (padding)
    advantages = torch.tensor([1.25, -0.75, 0.5][:B], dtype=torch.float64)
    return input_ids, loss_mask, advantages


def golden_for(cfg, params, input_ids, loss_mask, advantages):
    leaves = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    logits = forward(cfg, leaves, input_ids)
    logp = torch.log_softmax(logits, dim=-1)  # [B, T, V]
    token_logprobs = logp[:, :-1].gather(-1, input_ids[:, 1:, None])[..., 0]  # [B, T-1]
    token_entropy = -(logp[:, :-1].exp() * logp[:, :-1]).sum(-1)
    loss = (loss_mask * advantages[:, None] * token_logprobs).sum()
    grads = torch.autograd.grad(loss, list(leaves.values()))
    golden = {
        "input_ids": input_ids,
        "loss_mask": loss_mask,
        "advantages": advantages,
        "logits": logits.detach(),
        "token_logprobs": token_logprobs.detach(),
        "token_entropy": token_entropy.detach(),
        "loss": loss.detach().reshape(1),
    }
    for name, g in zip(leaves, grads):
        golden["grad." + name] = g
    return golden


def loss_value(cfg, params, input_ids, loss_mask, advantages):
    logp = torch.log_softmax(forward(cfg, params, input_ids), dim=-1)
    tlp = logp[:, :-1].gather(-1, input_ids[:, 1:, None])[..., 0]
    return (loss_mask * advantages[:, None] * tlp).sum().item()


def finite_difference_check(cfg, params, inputs, golden, probes=12, h=1e-5):
    """Central differences on random entries of a few parameters; relative to the tensor's max |grad|."""
    g = torch.Generator().manual_seed(7)
    names = list(params)
    worst = 0.0
    for i in range(probes):
        name = names[(i * 7) % len(names)]
        flat_index = int(torch.randint(0, params[name].numel(), (1,), generator=g))
        plus = {k: v.clone() for k, v in params.items()}
        minus = {k: v.clone() for k, v in params.items()}
        plus[name].view(-1)[flat_index] += h
        minus[name].view(-1)[flat_index] -= h
        fd = (loss_value(cfg, plus, *inputs) - loss_value(cfg, minus, *inputs)) / (2 * h)
        analytic = golden["grad." + name].reshape(-1)[flat_index].item()
        scale = golden["grad." + name].abs().max().item()
        worst = max(worst, abs(fd - analytic) / max(scale, 1e-12))
    return worst


def export_onnx(cfg, params, input_ids, path):
    module = LogitsOnly(cfg, params, cfg["max_position_embeddings"]).eval()
    torch.onnx.export(
        module, (input_ids,), path, input_names=["input_ids"], output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}},
        opset_version=14, do_constant_folding=True,
    )
    with torch.no_grad():
        return module(input_ids)


def export_onnx_with_past(cfg, params, input_ids, path):
    """Export with a past of 2 positions (dynamic batch, sequence and past length), and check that prefill + one
    cached step reproduces the full forward's logits."""
    module = WithPast(cfg, params, cfg["max_position_embeddings"]).eval()
    L, Hkv, Dh = cfg["num_hidden_layers"], cfg["num_key_value_heads"], head_dim(cfg)
    B, T = input_ids.shape
    names_in = ["input_ids", "attention_mask", "position_ids"]
    names_out = ["logits"]
    dynamic = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
               "position_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}}
    for l in range(L):
        for kind in ("key", "value"):
            names_in.append(f"past_key_values.{l}.{kind}")
            names_out.append(f"present.{l}.{kind}")
            dynamic[f"past_key_values.{l}.{kind}"] = {0: "batch", 2: "past"}
            dynamic[f"present.{l}.{kind}"] = {0: "batch", 2: "total"}
    P = 2
    past = [torch.zeros(B, Hkv, P, Dh) for _ in range(2 * L)]
    example = (input_ids[:, :3], torch.ones(B, P + 3, dtype=torch.int64), torch.arange(P, P + 3).expand(B, 3), *past)
    torch.onnx.export(module, example, path, input_names=names_in, output_names=names_out, dynamic_axes=dynamic,
                      opset_version=14, do_constant_folding=True)
    with torch.no_grad():
        empty = [torch.zeros(B, Hkv, 0, Dh) for _ in range(2 * L)]
        ones = torch.ones(B, T, dtype=torch.int64)
        first = module(input_ids[:, :-1], ones[:, :-1], torch.arange(T - 1).expand(B, T - 1), *empty)
        step = module(input_ids[:, -1:], ones, torch.full((B, 1), T - 1), *first[1:])
        full = LogitsOnly(cfg, params, cfg["max_position_embeddings"])(input_ids)
    return max((first[0] - full[:, :-1]).abs().max().item(), (step[0] - full[:, -1:]).abs().max().item())


BENCH_PRESETS = {
    "small": qwen2_config(vocab_size=8192, hidden_size=256, intermediate_size=704, num_hidden_layers=4,
                          num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=1024),
    # Qwen2.5-0.5B-Instruct's exact configuration (use --layers to shorten it on small machines)
    "qwen2.5-0.5b": qwen2_config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                                 num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                                 max_window_layers=21, sliding_window=32768, bos_token_id=151643, eos_token_id=151645),
}


def write_bench_model(folder, cfg, params, origin):
    """config.json, model.safetensors and both ONNX exports of one benchmark model."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    save_safetensors(os.path.join(folder, "model.safetensors"), params, {"format": "pt"})
    ids = torch.randint(0, cfg["vocab_size"], (1, 8), generator=torch.Generator().manual_seed(1))
    export_onnx(cfg, params, ids, os.path.join(folder, "model.onnx"))
    export_onnx_with_past(cfg, params, ids, os.path.join(folder, "model_kv.onnx"))
    print(f"wrote {folder} ({origin}): {sum(p.numel() for p in params.values())} parameters")


def make_bench_model(folder, preset, layers):
    cfg = dict(BENCH_PRESETS[preset])
    if layers:
        cfg["num_hidden_layers"] = cfg["max_window_layers"] = layers
    params = {k: v.float() for k, v in init_parameters(cfg, seed=99).items()}
    write_bench_model(folder, cfg, params, f"random {preset}")


def make_bench_model_from(folder, source):
    """The same bench files for an existing float32 HF folder (the shipped tiny-rema): its config and weights."""
    with open(os.path.join(source, "config.json")) as f:
        cfg = json.load(f)
    params = {k: v.float() for k, v in load_safetensors(os.path.join(source, "model.safetensors")).items()}
    write_bench_model(folder, cfg, params, f"from {source}")


def main():
    torch.set_num_threads(1)
    if "--bench" in sys.argv:
        arg = lambda flag, default=None: sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default  # noqa: E731
        if "--from" in sys.argv:
            make_bench_model_from(arg("--bench"), arg("--from"))
        else:
            make_bench_model(arg("--bench"), arg("--preset", "small"), int(arg("--layers", "0")))
        return
    only = set(sys.argv[1:])
    for name, spec in FIXTURES.items():
        if only and name not in only:
            continue
        cfg, B, T, seed = spec["config"], spec["B"], spec["T"], spec["seed"]
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        params = init_parameters(cfg, seed)
        inputs = make_inputs(cfg, B, T, seed)
        golden = golden_for(cfg, params, *inputs)

        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")
        save_safetensors(os.path.join(folder, "model.safetensors"), {k: v.float() for k, v in params.items()},
                         {"format": "pt"})
        save_safetensors(os.path.join(folder, "golden.safetensors"), golden,
                         {"generator": "scripts/golden/make_golden.py", "fixture": name})

        # self-checks: the files read back to exactly what the oracle used
        reread = load_safetensors(os.path.join(folder, "model.safetensors"))
        assert set(reread) == set(params) and all(torch.equal(reread[k].double(), params[k]) for k in params)
        reread_golden = load_safetensors(os.path.join(folder, "golden.safetensors"))
        assert all(torch.equal(reread_golden[k], golden[k]) for k in golden)
        fd_error = finite_difference_check(cfg, params, inputs, golden)
        assert fd_error < 1e-6, f"{name}: finite differences disagree with autograd ({fd_error:.2e})"
        logits32 = export_onnx(cfg, params, inputs[0], os.path.join(folder, "model.onnx"))
        f32_error = (logits32.double() - golden["logits"]).abs().max().item()
        assert f32_error < 1e-4, f"{name}: float32 forward is {f32_error:.2e} from float64"
        kv_error = export_onnx_with_past(cfg, params, inputs[0], os.path.join(folder, "model_kv.onnx"))
        assert kv_error < 1e-5, f"{name}: cached forward differs from the full forward by {kv_error:.2e}"

        sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in sorted(os.listdir(folder))}
        active = int(inputs[1].sum().item())
        print(f"{name}: B={B} T={T} V={cfg['vocab_size']} params={sum(p.numel() for p in params.values())} "
              f"active tokens={active} loss={golden['loss'].item():.6f} fd max rel err={fd_error:.1e} "
              f"f32 max logit err={f32_error:.1e} kv-cache err={kv_error:.1e} files={sizes}")
        if name in SHIPPED_FIXTURES:
            os.makedirs(os.path.join(SHIPPED, name), exist_ok=True)
            for f in ("config.json", "model.safetensors", "golden.safetensors"):
                shutil.copyfile(os.path.join(folder, f), os.path.join(SHIPPED, name, f))


if __name__ == "__main__":
    main()
