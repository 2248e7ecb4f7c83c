"""TRL's side of the `trl` part of `npm run bench` (bench/trl.ts drives it; run inside scripts/trl/.venv):

  bench_trl.py --make-random DIR --config CONFIG_JSON --tokenizer DIR
      writes a random-weight float32 model of CONFIG_JSON's shape with the --tokenizer folder's vocabulary to DIR
      (config.json, model.safetensors, and that folder's tokenizer files)
  bench_trl.py
      reads one JSON line from stdin: {"model_dir", "grpo_config", "lora_config", "prompts" (chat messages per
      problem), "answers", "threads", "steps"}, builds a GRPOTrainer on it and trains in lockstep with the caller:
      before each optimiser step it waits for a line "step" on stdin, after it prints one line
      "TRL-BENCH {json}" with the step's wall time, its stages and the completion tokens it trained.
"""
import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trl_env import ensure_venv  # noqa: E402

ensure_venv()

import torch  # noqa: E402


def make_random(folder, config_path, tokenizer_dir):
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModelForCausalLM

    from transformers import AutoTokenizer

    os.makedirs(folder, exist_ok=True)
    with open(config_path) as f:
        cfg = json.load(f)
    # the vocabulary of the tokenizer both trainers use: a sampled id it cannot decode would be text neither could train
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    cfg.update(torch_dtype="float32", vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
               eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder), dtype=torch.float32)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    if cfg.get("tie_word_embeddings"):
        state.pop("lm_head.weight", None)
    save_file(state, os.path.join(folder, "model.safetensors"), {"format": "pt"})
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if os.path.exists(os.path.join(tokenizer_dir, name)):
            shutil.copy(os.path.join(tokenizer_dir, name), os.path.join(folder, name))
    # TRL stops and masks a completion at the tokenizer's eos_token only (the generation config's other eos ids
    # would end its generation but not its mask), so both trainers stop at that one id: the model's generation
    # config names only it
    gen_path = os.path.join(folder, "generation_config.json")
    if os.path.exists(gen_path):
        with open(gen_path) as f:
            gen = json.load(f)
        gen["eos_token_id"] = tokenizer.eos_token_id
        with open(gen_path, "w") as f:
            json.dump(gen, f, indent=2)


def boxed_reward(answers):
    """1 when the last \\boxed{...} of a completion holds the problem's answer, else 0."""
    def reward(completions, answer, **kwargs):
        out = []
        for completion, want in zip(completions, answer):
            text = completion if isinstance(completion, str) else completion[-1]["content"]
            found = re.findall(r"\\boxed\{([^{}]*)\}", text)
            out.append(1.0 if found and found[-1].strip() == str(want).strip() else 0.0)
        return out
    return reward


def lockstep(setup):
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer
    import tempfile

    torch.set_num_threads(setup["threads"])
    tokenizer = AutoTokenizer.from_pretrained(setup["model_dir"])
    model = AutoModelForCausalLM.from_pretrained(setup["model_dir"], dtype=torch.float32)
    dataset = Dataset.from_list([{"prompt": p, "answer": a} for p, a in zip(setup["prompts"], setup["answers"])])
    tmp = tempfile.mkdtemp()
    args = GRPOConfig(output_dir=tmp, use_cpu=True, report_to="none", disable_tqdm=True, logging_steps=10 ** 9,
                      save_strategy="no", max_steps=setup["steps"], **setup["grpo_config"])
    lora = LoraConfig(**setup["lora_config"]) if setup["lora_config"] else None
    reward = boxed_reward(setup["answers"])
    reward.__name__ = "boxed"
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=dataset,
                          processing_class=tokenizer, peft_config=lora)
    clock = {"generate": 0.0, "score": 0.0}

    def timed(fn, key):
        def run(*a, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                clock[key] += time.perf_counter() - t0
        return run

    trainer._generate = timed(trainer._generate, "generate")
    trainer._generate_and_score_completions = timed(trainer._generate_and_score_completions, "score")

    class Lockstep(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            if sys.stdin.readline().strip() != "step":
                sys.exit(0)
            clock["generate"] = clock["score"] = 0.0
            self.t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            step = time.perf_counter() - self.t0
            metrics = trainer._metrics["train"]
            tokens = metrics["completions/mean_length"][-1] * setup["grpo_config"]["per_device_train_batch_size"]
            rollout, scoring = clock["generate"], clock["score"] - clock["generate"]
            print("TRL-BENCH " + json.dumps({
                "step_s": step, "tokens": tokens,
                "stages_s": {"rollout": rollout, "scoring": scoring, "update": step - clock["score"]},
            }), flush=True)

    trainer.add_callback(Lockstep())
    trainer.train()


def main():
    if "--make-random" in sys.argv:
        arg = lambda flag: sys.argv[sys.argv.index(flag) + 1]  # noqa: E731
        make_random(arg("--make-random"), arg("--config"), arg("--tokenizer"))
        return
    lockstep(json.loads(sys.stdin.readline()))


if __name__ == "__main__":
    main()
