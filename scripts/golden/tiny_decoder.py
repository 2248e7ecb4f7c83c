#!/usr/bin/python3
"""A Llama / Qwen2 decoder written out in plain torch, following Hugging Face transformers' semantics
(modeling_llama.py / modeling_qwen2.py) so it can serve as a float64 oracle for our TypeScript engine:

  RMSNorm      w * x / sqrt(mean(x^2) + eps)
  RoPE         rotate_half convention: q*cos + rotate_half(q)*sin, inv_freq = theta^(-2i/Dh), emb = cat(f, f)
  attention    causal, scale 1/sqrt(Dh), GQA: query head h reads kv head h // (H / Hkv) (HF repeat_kv)
  MLP          down(silu(gate(x)) * up(x))  (SwiGLU)
  biases       q/k/v projections when config["attention_bias"] or model_type == "qwen2"; never on o_proj
  lm_head      shares embed_tokens when tie_word_embeddings

Deliberate difference from transformers: no float32 up/down casts inside RMSNorm, softmax or RoPE, so a float64 run
is exact to float64 (transformers in float64 is only good to ~1e-6 because of those casts).
Parameters are a dict keyed by HF names; the model is a pure function of (params, input_ids).
"""
import math

import torch


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def has_qkv_bias(cfg):
    return cfg["model_type"] == "qwen2" or bool(cfg.get("attention_bias", False))


def parameter_shapes(cfg):
    """HF parameter names and shapes, in the order transformers' state_dict lists them."""
    D, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H, Hkv, Dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    shapes = {"model.embed_tokens.weight": (V, D)}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        shapes[p + "self_attn.q_proj.weight"] = (H * Dh, D)
        if has_qkv_bias(cfg):
            shapes[p + "self_attn.q_proj.bias"] = (H * Dh,)
        shapes[p + "self_attn.k_proj.weight"] = (Hkv * Dh, D)
        if has_qkv_bias(cfg):
            shapes[p + "self_attn.k_proj.bias"] = (Hkv * Dh,)
        shapes[p + "self_attn.v_proj.weight"] = (Hkv * Dh, D)
        if has_qkv_bias(cfg):
            shapes[p + "self_attn.v_proj.bias"] = (Hkv * Dh,)
        shapes[p + "self_attn.o_proj.weight"] = (D, H * Dh)
        shapes[p + "mlp.gate_proj.weight"] = (F, D)
        shapes[p + "mlp.up_proj.weight"] = (F, D)
        shapes[p + "mlp.down_proj.weight"] = (D, F)
        shapes[p + "input_layernorm.weight"] = (D,)
        shapes[p + "post_attention_layernorm.weight"] = (D,)
    shapes["model.norm.weight"] = (D,)
    if not cfg.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = (V, D)
    return shapes


def init_parameters(cfg, seed):
    """Random weights that make every part of the model matter: N(0, 1/fan_in) linears, unit-ish logits,
    norms 1 + 0.1 N, biases 0.1 N (HF's N(0, 0.02) would give near-uniform softmaxes in a tiny model).
    Returned in float64 but already rounded to float32, so the f32 checkpoint holds exactly these values."""
    g = torch.Generator().manual_seed(seed)
    D = cfg["hidden_size"]
    params = {}
    for name, shape in parameter_shapes(cfg).items():
        x = torch.randn(shape, generator=g, dtype=torch.float64)
        if name.endswith("layernorm.weight") or name == "model.norm.weight":
            x = 1.0 + 0.1 * x
        elif name.endswith(".bias"):
            x = 0.1 * x
        elif name == "model.embed_tokens.weight":
            # tied: the embedding is also the head, keep logits O(1)
            x = x * (2.0 / math.sqrt(D)) if cfg.get("tie_word_embeddings", False) else x
        else:
            x = x / math.sqrt(shape[1])
        params[name] = x.float().double()
    return params


def rms_norm(x, w, eps):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope_tables(cfg, T, dtype):
    """cos, sin [T, Dh] (HF: emb = cat(freqs, freqs)), computed in float64 then cast."""
    Dh = head_dim(cfg)
    inv_freq = 1.0 / (cfg.get("rope_theta", 10000.0) ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def forward(cfg, params, input_ids, rope=None):
    """logits [B, T, V] for input_ids [B, T]; the dtype is that of the parameters."""
    B, T = input_ids.shape
    D, V = cfg["hidden_size"], cfg["vocab_size"]
    H, Hkv, Dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    embed = params["model.embed_tokens.weight"]
    cos, sin = rope if rope is not None else rope_tables(cfg, T, embed.dtype)
    cos, sin = cos[:T], sin[:T]
    positions = torch.arange(T)
    causal = positions[None, :] <= positions[:, None]  # [T, T]: key j visible from query i when j <= i
    x = embed[input_ids]  # [B, T, D]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms_norm(x, params[p + "input_layernorm.weight"], eps)

        def proj(name, h=h, p=p):
            y = h @ params[p + f"self_attn.{name}.weight"].t()
            b = params.get(p + f"self_attn.{name}.bias")
            return y + b if b is not None else y

        q = proj("q_proj").view(B, T, H, Dh).transpose(1, 2)  # [B, H, T, Dh]
        k = proj("k_proj").view(B, T, Hkv, Dh).transpose(1, 2)  # [B, Hkv, T, Dh]
        v = proj("v_proj").view(B, T, Hkv, Dh).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = H // Hkv  # repeat_kv: kv head j serves query heads j*group .. j*group+group-1
        k = k[:, :, None].expand(B, Hkv, group, T, Dh).reshape(B, H, T, Dh)
        v = v[:, :, None].expand(B, Hkv, group, T, Dh).reshape(B, H, T, Dh)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)  # [B, H, T, T]
        scores = scores.masked_fill(~causal, float("-inf"))
        attn = torch.softmax(scores, dim=-1) @ v  # [B, H, T, Dh]
        attn = attn.transpose(1, 2).reshape(B, T, H * Dh)
        x = x + attn @ params[p + "self_attn.o_proj.weight"].t()
        h = rms_norm(x, params[p + "post_attention_layernorm.weight"], eps)
        gate = h @ params[p + "mlp.gate_proj.weight"].t()
        up = h @ params[p + "mlp.up_proj.weight"].t()
        x = x + (torch.nn.functional.silu(gate) * up) @ params[p + "mlp.down_proj.weight"].t()
    x = rms_norm(x, params["model.norm.weight"], eps)
    head = params.get("lm_head.weight", embed)
    logits = x @ head.t()  # [B, T, V]
    assert logits.shape == (B, T, V) and x.shape[-1] == D
    return logits


class LogitsOnly(torch.nn.Module):
    """The same function as an nn.Module (float32) for torch.onnx.export: input_ids -> logits."""

    def __init__(self, cfg, params, max_positions):
        super().__init__()
        self.cfg = cfg
        self.names = list(params.keys())
        for i, name in enumerate(self.names):
            self.register_buffer(f"p{i}", params[name].float())
        cos, sin = rope_tables(cfg, max_positions, torch.float32)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, input_ids):
        params = {name: getattr(self, f"p{i}") for i, name in enumerate(self.names)}
        return forward(self.cfg, params, input_ids, rope=(self.cos, self.sin))


def forward_with_cache(cfg, params, input_ids, attention_mask, position_ids, past, rope):
    """The decoder with a KV cache, in the input/output layout of Hugging Face Optimum's ONNX exports
    (what transformers.js and onnxruntime-genai run):
      input_ids [B, T], attention_mask [B, P+T] (1 = real token, 0 = padding), position_ids [B, T],
      past = [(key, value)] * L, each [B, Hkv, P, Dh]  ->  logits [B, T, V], present = [(key, value)] * L of [B, Hkv, P+T, Dh]
    Query i (absolute index P+i) sees key j when j <= P+i and attention_mask[b, j] == 1. Masked scores get the dtype's
    most negative value (as transformers does) rather than -inf, so fully padded rows stay finite."""
    B, T = input_ids.shape
    H, Hkv, Dh = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    eps = cfg.get("rms_norm_eps", 1e-6)
    embed = params["model.embed_tokens.weight"]
    cos_table, sin_table = rope
    cos = cos_table[position_ids][:, None]  # [B, 1, T, Dh]
    sin = sin_table[position_ids][:, None]
    P = past[0][0].shape[2]
    query_pos = torch.arange(T)[:, None] + P
    key_pos = torch.arange(P + T)[None, :]
    visible = (key_pos <= query_pos)[None, None] & (attention_mask[:, None, None, :] == 1)  # [B, 1, T, P+T]
    x = embed[input_ids]
    present = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms_norm(x, params[p + "input_layernorm.weight"], eps)

        def proj(name, h=h, p=p):
            y = h @ params[p + f"self_attn.{name}.weight"].t()
            b = params.get(p + f"self_attn.{name}.bias")
            return y + b if b is not None else y

        q = proj("q_proj").view(B, T, H, Dh).transpose(1, 2)
        k = proj("k_proj").view(B, T, Hkv, Dh).transpose(1, 2)
        v = proj("v_proj").view(B, T, Hkv, Dh).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past[l][0], k], dim=2)  # [B, Hkv, P+T, Dh]
        v = torch.cat([past[l][1], v], dim=2)
        present.append((k, v))
        S = k.shape[2]
        group = H // Hkv
        k = k[:, :, None].expand(B, Hkv, group, S, Dh).reshape(B, H, S, Dh)
        v = v[:, :, None].expand(B, Hkv, group, S, Dh).reshape(B, H, S, Dh)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)
        scores = scores.masked_fill(~visible, torch.finfo(scores.dtype).min)
        attn = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, H * Dh)
        x = x + attn @ params[p + "self_attn.o_proj.weight"].t()
        h = rms_norm(x, params[p + "post_attention_layernorm.weight"], eps)
        x = x + (torch.nn.functional.silu(h @ params[p + "mlp.gate_proj.weight"].t()) * (h @ params[p + "mlp.up_proj.weight"].t())) @ params[p + "mlp.down_proj.weight"].t()
    x = rms_norm(x, params["model.norm.weight"], eps)
    logits = x @ params.get("lm_head.weight", embed).t()
    return logits, present


class WithPast(LogitsOnly):
    """forward_with_cache as a module for torch.onnx.export (flat inputs and outputs, Optimum's names)."""

    def forward(self, input_ids, attention_mask, position_ids, *past_flat):
        params = {name: getattr(self, f"p{i}") for i, name in enumerate(self.names)}
        past = [(past_flat[2 * l], past_flat[2 * l + 1]) for l in range(len(past_flat) // 2)]
        logits, present = forward_with_cache(self.cfg, params, input_ids, attention_mask, position_ids, past, (self.cos, self.sin))
        return (logits, *[t for kv in present for t in kv])
