// The command line's process-wide choices (--simd, --threads, --weight-dtype, --data-dir) travel as one
// RuntimeChoices object: defaults and the flag-named refusal, and two objects used at once in one process each get
// their own backend threads, base-weight storage and data folder.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeChoices } from '../../src/cli/runtime-choices.ts';
import { loadConfigProblems, loadModel } from '../../src/cli/setup.ts';
import { getPreset } from '../../src/rl/presets.ts';
import type { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { writeRandomModel } from '../helpers/cli/random-model.ts';

describe('runtimeChoices', () => {
  it('defaults every choice to auto and no data folder', () => {
    expect(runtimeChoices()).toEqual({ simd: 'auto', threads: 'auto', weightDtype: 'auto' });
    expect(runtimeChoices({ simd: 'plain', threads: '2', weightDtype: 'bf16', dataDir: 'd' })).toEqual({
      simd: 'plain',
      threads: '2',
      weightDtype: 'bf16',
      dataDir: 'd',
    });
  });

  it('refuses a value outside the choices, naming the flag', () => {
    expect(() => runtimeChoices({ simd: 'avx512' })).toThrow('--simd: "avx512" is not one of auto, relaxed, plain');
    expect(() => runtimeChoices({ threads: '4' })).toThrow('--threads: "4" is not one of auto, 1, 2');
    expect(() => runtimeChoices({ weightDtype: 'f8' })).toThrow(
      '--weight-dtype: "f8" is not one of auto, f32, f16, bf16',
    );
  });
});

describe('two RuntimeChoices in one process', () => {
  it('each loads with its own threads, base storage and data folder, used at the same time', async () => {
    const model = writeRandomModel();
    const folders = mkdtempSync(join(tmpdir(), 'rema-runtime-'));
    const folder = (name: string, questions: number) => {
      const dir = join(folders, name);
      mkdirSync(dir);
      const rows = Array.from({ length: questions }, (_, i) =>
        JSON.stringify({ question: `${i}+1?`, answer: `${i + 1}` }),
      );
      writeFileSync(join(dir, 'math_train_lv3to5_8k.min.jsonl'), rows.join('\n') + '\n');
      return dir;
    };
    const a = runtimeChoices({ threads: '1', weightDtype: 'bf16', dataDir: folder('a', 3) });
    const b = runtimeChoices({ threads: '2', weightDtype: 'f32', dataDir: folder('b', 5) });
    const config = {
      ...getPreset('tiny-default'),
      modelSource: 'local' as const,
      model,
      evalSet: 'math8k' as const,
      evalSize: 0,
    };
    const [ma, mb, pa, pb] = await Promise.all([
      loadModel(config, 'wasm', a),
      loadModel(config, 'wasm', b),
      loadConfigProblems(config, a),
      loadConfigProblems(config, b),
    ]);
    try {
      expect([(ma.backend as WasmBackend).threads, ma.policy.baseDtype]).toEqual([1, 'bf16']);
      expect([(mb.backend as WasmBackend).threads, mb.policy.baseDtype]).toEqual([2, 'f32']);
      expect([pa.eval.length, pb.eval.length]).toEqual([3, 5]);
    } finally {
      for (const m of [ma, mb]) {
        m.policy.dispose();
        m.backend.destroy();
      }
    }
  });
});
