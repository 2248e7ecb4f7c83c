// Node only: the random benchmark models that bench/peer.ts and bench/browser/driver.ts run, made once by
// scripts/golden/make_golden.py --bench (needs /usr/bin/python3 with python3-torch and python3-onnx) into
// bench/results/tmp/models/<name>/ (git-ignored): config.json, model.safetensors, model.onnx, model_kv.onnx.
// Each folder is also a Hugging Face ONNX folder as transformers.js loads it (env.localModelPath):
// onnx/model.onnx (a symlink to model_kv.onnx, already in Optimum's KV-cache layout) and generation_config.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/**
 * Makes (once) a benchmark model with its ONNX exports; returns its folder. "tiny-rema" is the shipped embedded
 * model (public/models/tiny-rema, trained weights), the others have random weights.
 */
export function benchModel(preset: 'small' | 'qwen2.5-0.5b' | 'tiny-rema', layers: number): string {
  const name = preset === 'qwen2.5-0.5b' ? `${preset}-L${layers}` : preset;
  const dir = join(root, 'bench/results/tmp/models', name);
  if (existsSync(join(dir, 'model_kv.onnx'))) return hfOnnxLayout(dir);
  console.log(`making ${name} (scripts/golden/make_golden.py --bench)...`);
  const what =
    preset === 'tiny-rema'
      ? ['--from', join(root, 'public/models/tiny-rema')]
      : ['--preset', preset, ...(layers ? ['--layers', String(layers)] : [])];
  const cmd = ['scripts/golden/make_golden.py', '--bench', dir, ...what];
  const r = spawnSync('/usr/bin/python3', cmd, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0)
    throw new Error(`bench: /usr/bin/python3 ${cmd.join(' ')} failed (needs python3-torch and python3-onnx)`);
  return hfOnnxLayout(dir);
}

/** Adds what transformers.js reads to a folder with config.json and model_kv.onnx: onnx/model.onnx (symlink) and
 *  generation_config.json (bos / eos from config.json; greedy). Returns the folder. */
export function hfOnnxLayout(dir: string): string {
  const onnx = join(dir, 'onnx', 'model.onnx');
  if (!existsSync(onnx)) {
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    symlinkSync('../model_kv.onnx', onnx);
  }
  const generationConfig = join(dir, 'generation_config.json');
  if (!existsSync(generationConfig)) {
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      bos_token_id?: number;
      eos_token_id?: number | number[];
    };
    writeFileSync(
      generationConfig,
      JSON.stringify({ bos_token_id: cfg.bos_token_id, eos_token_id: cfg.eos_token_id, do_sample: false }, null, 2) +
        '\n',
    );
  }
  return dir;
}
