"""Writes the TRL parity fixtures under tests/fixtures/trl/<model>/ from TRL's own GRPOTrainer code path, in float64
from exactly the float32 weights of the model folder (`python3 scripts/trl/make_trl_fixtures.py`; it installs
scripts/trl/.venv on first use, see trl_env.py; CI reads the committed fixtures only).

A fixed batch (3 prompts x G 4 completions with fixed rewards) goes through GRPOTrainer._generate_and_score_completions
with `_generate` replaced by the fixed token ids (so TRL computes the advantages, the old and reference log-probs
itself), then compute_loss and backward, for each case of CASES (GRPOConfig settings). Per model folder:
  adapter_config.json, adapter_model.safetensors   the seeded rank-2 LoRA (PEFT layout, F32 values)
  batch.safetensors   prompt_ids [B, P] (left-padded) and prompt_mask, completion_ids [B, C] (right-padded) and
                      completion_mask, rewards [B]
  cases.json          per case: the GRPOConfig settings it ran with and whether old log-probs were shifted
  <case>.safetensors  F64: advantages [B], logps [B, C] (the policy's, inside compute_loss), entropy [B, C],
                      old_logps [B, C] (off-policy cases), ref_logps [B, C] (beta > 0), loss [1];
                      F32: grad.<PEFT parameter name> for every LoRA tensor
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trl_env import ensure_venv  # noqa: E402

ensure_venv()

import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from peft import LoraConfig  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "trl")
TOKENIZER = os.path.join(ROOT, "public", "models", "tiny-rema")

MODELS = {
    "tiny-rema": os.path.join(ROOT, "public", "models", "tiny-rema"),
    "qwen2-tied-gqa2": os.path.join(ROOT, "tests", "fixtures", "golden", "qwen2-tied-gqa2"),
}
G = 4
MAX_COMPLETION = 16
REWARDS = [1.0, 0.0, 0.5, 1.0, 0.0, 0.25, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]  # the third group has zero std
LORA = dict(r=2, lora_alpha=3, target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                                 "down_proj"], lora_dropout=0.0, bias="none", task_type="CAUSAL_LM")

# Each case: GRPOConfig settings, plus "old_shift" (old log-probs = TRL's own + a seeded shift in [-0.4, 0.4], as
# after an update: the ratio moves and the clip acts).
COMMON = dict(use_bias_correction_kl=False, epsilon=0.2, temperature=1.0)
CASES = {
    "dapo": dict(loss_type="dapo", scale_rewards="group", beta=0.0),
    "dapo-kl-clip": dict(loss_type="dapo", scale_rewards="group", beta=0.04, epsilon_high=0.28, num_iterations=2,
                         old_shift=True),
    "grpo-kl-t08": dict(loss_type="grpo", scale_rewards="group", beta=0.04, temperature=0.8),
    "bnpo-batch": dict(loss_type="bnpo", scale_rewards="batch", beta=0.0),
    "dr_grpo-kl": dict(loss_type="dr_grpo", scale_rewards="none", beta=0.04),
}


def make_batch(tokenizer, folder, vocab, seed):
    """Prompt ids (tokenised chats for tiny-rema's vocabulary, random ids otherwise) and G completions of each,
    sampled from the base model at temperature 1 (seeded), up to MAX_COMPLETION tokens or eos."""
    g = torch.Generator().manual_seed(seed)
    if vocab >= 256:
        texts = ["What is 3 + 4?", "Compute 12 - 5.", "What is 6 * 7?"]
        prompts = [tokenizer.apply_chat_template([{"role": "user", "content": t}], add_generation_prompt=True,
                                                 tokenize=True, return_dict=False) for t in texts]
    else:
        prompts = [torch.randint(4, vocab, (n,), generator=g).tolist() for n in (5, 8, 6)]
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64).eval()
    completions = []
    with torch.no_grad():
        for prompt in prompts:
            for _ in range(G):
                ids = []
                while len(ids) < MAX_COMPLETION and (not ids or ids[-1] != tokenizer.eos_token_id):
                    logits = model(torch.tensor([prompt + ids])).logits[0, -1]
                    ids.append(int(torch.multinomial(torch.softmax(logits, -1), 1, generator=g)))
                completions.append(ids)
    return [p for p in prompts for _ in range(G)], completions


def seed_lora(model, seed=2024):
    """A and B drawn in float32 (so the adapter file holds the exact values), B non-zero: the adapted policy differs
    from the reference (adapters off)."""
    g = torch.Generator().manual_seed(seed)
    weights = {}
    for name, p in sorted(model.named_parameters()):
        if "lora_" not in name:
            continue
        fan_in = p.shape[1]
        scale = 1.0 / fan_in ** 0.5 if "lora_A" in name else 0.02
        w = (torch.randn(p.shape, generator=g, dtype=torch.float32) * scale)
        with torch.no_grad():
            p.copy_(w.to(p.dtype))
        weights[name.replace(".default", "")] = w
    return weights


def run_case(folder, tokenizer, prompt_ids, completion_ids, case):
    settings = {k: v for k, v in case.items() if k != "old_shift"}
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64)
    with tempfile.TemporaryDirectory() as tmp:
        args = GRPOConfig(output_dir=tmp, per_device_train_batch_size=len(prompt_ids), num_generations=G,
                          max_completion_length=MAX_COMPLETION, gradient_accumulation_steps=1, bf16=False, fp16=False,
                          use_cpu=True, report_to="none", seed=0, **{**COMMON, **settings})

        def fixed_reward(completions, **kwargs):
            return list(REWARDS)

        dataset = Dataset.from_list([{"prompt": "p"}] * len(prompt_ids))
        trainer = GRPOTrainer(model=model, reward_funcs=[fixed_reward], args=args, train_dataset=dataset,
                              processing_class=tokenizer, peft_config=LoraConfig(**LORA))
    adapter = seed_lora(trainer.model)
    texts = tokenizer.batch_decode(completion_ids)
    trainer._generate = lambda prompts: (prompt_ids, completion_ids, None, texts, None, {}, None, None)
    trainer.model.train()
    trainer.current_gradient_accumulation_steps = 1
    batch = trainer._generate_and_score_completions([{"prompt": "p"} for _ in prompt_ids])
    out = {"advantages": batch["advantages"].detach().clone()}
    mask = batch["completion_mask"].double()
    if case.get("old_shift"):
        g = torch.Generator().manual_seed(5)
        shift = (torch.rand(mask.shape, generator=g, dtype=torch.float64) * 0.8 - 0.4) * mask
        batch["old_per_token_logps"] = batch["old_per_token_logps"] + shift
        out["old_logps"] = batch["old_per_token_logps"].clone()
    if "ref_per_token_logps" in batch:
        out["ref_logps"] = batch["ref_per_token_logps"].clone()

    inner = trainer._get_per_token_logps_and_entropies
    seen = {}

    def capture(*a, **kw):
        logps, entropies, aux = inner(*a, **kw)
        seen["logps"], seen["entropy"] = logps, entropies
        return logps, entropies, aux

    trainer._get_per_token_logps_and_entropies = capture
    loss = trainer.compute_loss(trainer.model, batch)
    loss.backward()
    out["logps"] = seen["logps"].detach() * mask
    out["entropy"] = seen["entropy"].detach() * mask
    out["loss"] = loss.detach().reshape(1)
    for name, p in trainer.model.named_parameters():
        if "lora_" in name:
            out["grad." + name.replace(".default", "")] = p.grad.detach().float()
    for k in list(out):
        if not k.startswith("grad."):
            out[k] = out[k].double().contiguous()
    return batch, adapter, out, trainer.model.peft_config["default"]


def main():
    torch.set_num_threads(1)
    only = set(sys.argv[1:])
    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER)
    for model_name, folder in MODELS.items():
        if only and model_name not in only:
            continue
        with open(os.path.join(folder, "config.json")) as f:
            vocab = json.load(f)["vocab_size"]
        prompt_ids, completion_ids = make_batch(tokenizer, folder, vocab, seed=len(model_name))
        dest = os.path.join(OUT, model_name)
        os.makedirs(dest, exist_ok=True)
        cases = {}
        for case_name, case in CASES.items():
            batch, adapter, out, peft_config = run_case(folder, tokenizer, prompt_ids, completion_ids, case)
            save_file(out, os.path.join(dest, f"{case_name}.safetensors"),
                      {"generator": "scripts/trl/make_trl_fixtures.py", "model": model_name, "case": case_name})
            cases[case_name] = {"grpo_config": {**COMMON, **{k: v for k, v in case.items() if k != "old_shift"}},
                                "old_shift": bool(case.get("old_shift"))}
            print(f"{model_name}/{case_name}: loss {out['loss'].item():.9f}, advantages "
                  f"{[round(a, 4) for a in out['advantages'].tolist()]}")
        save_file({"prompt_ids": batch["prompt_ids"].contiguous(), "prompt_mask": batch["prompt_mask"].contiguous(),
                   "completion_ids": batch["completion_ids"].contiguous(),
                   "completion_mask": batch["completion_mask"].contiguous(),
                   "rewards": torch.tensor(REWARDS, dtype=torch.float64)},
                  os.path.join(dest, "batch.safetensors"), {"generator": "scripts/trl/make_trl_fixtures.py"})
        save_file({k: v.contiguous() for k, v in adapter.items()}, os.path.join(dest, "adapter_model.safetensors"),
                  {"format": "pt"})
        peft = peft_config.to_dict()
        peft["target_modules"] = sorted(peft["target_modules"])
        with open(os.path.join(dest, "adapter_config.json"), "w") as f:
            json.dump({k: peft[k] for k in ("peft_type", "task_type", "r", "lora_alpha", "target_modules",
                                            "lora_dropout", "bias", "use_rslora")}, f, indent=2, default=str)
            f.write("\n")
        import trl, transformers, peft as peft_lib  # noqa: E401
        with open(os.path.join(dest, "cases.json"), "w") as f:
            json.dump({"versions": {"trl": trl.__version__, "torch": torch.__version__,
                                    "transformers": transformers.__version__, "peft": peft_lib.__version__},
                       "group_size": G, "max_completion_length": MAX_COMPLETION, "cases": cases}, f, indent=2)
            f.write("\n")
        sizes = {f: os.path.getsize(os.path.join(dest, f)) for f in sorted(os.listdir(dest))}
        print(f"{model_name}: {sum(sizes.values())} bytes {sizes}")


if __name__ == "__main__":
    main()
