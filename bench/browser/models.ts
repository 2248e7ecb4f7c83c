// Node only: the random benchmark models that bench/peer.ts and bench/browser/driver.ts run, made once by
// scripts/golden/make_golden.py --bench (needs /usr/bin/python3 with python3-torch and python3-onnx) into
// bench/results/tmp/models/<name>/ (git-ignored): config.json, model.safetensors, model.onnx, model_kv.onnx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** Makes (once) a random benchmark model with its ONNX exports; returns its folder. */
export function benchModel(preset: 'small' | 'qwen2.5-0.5b', layers: number): string {
  const name = preset === 'small' ? 'small' : `${preset}-L${layers}`;
  const dir = join(root, 'bench/results/tmp/models', name);
  if (existsSync(join(dir, 'model_kv.onnx'))) return dir;
  console.log(`making ${name} (scripts/golden/make_golden.py --bench)...`);
  const cmd = ['scripts/golden/make_golden.py', '--bench', dir, '--preset', preset, ...(layers ? ['--layers', String(layers)] : [])];
  const r = spawnSync('/usr/bin/python3', cmd, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`bench: /usr/bin/python3 ${cmd.join(' ')} failed (needs python3-torch and python3-onnx)`);
  return dir;
}

