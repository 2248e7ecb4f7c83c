// The training worker's bundle leaves out the answer checker's LaTeX parser (@cortex-js/compute-engine, ~3.3 MB
// built): grading runs in the checker's own worker (checker.worker.ts), so the parser is not on the path to the
// page's first rollout. Walks the static imports (what a bundler puts in the worker's first chunk: type-only
// imports are erased, dynamic import() and `new Worker(new URL(...))` become chunks of their own) from
// trainer.worker.ts over the real source files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

// `import ... from` / `export ... from` (type-only ones marked) and bare `import '...'`; dynamic import() is not matched
const staticRe = /^\s*(?:import|export)\s+(type\s+)?[^'"]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The module specifiers `file` loads statically (type-only imports and exports left out). */
function staticImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(staticRe)].filter((m) => !m[1]).map((m) => m[2] ?? m[3]);
}

/** Every source file and package reached from `entry` through static imports, each with the chain that reaches it. */
function staticGraph(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const spec of staticImports(file)) {
      const chain = [...reached.get(file)!, spec];
      if (!spec.startsWith('.')) {
        if (!reached.has(spec)) reached.set(spec, chain);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (!existsSync(target)) throw new Error(`${relative(root, file)}: import '${spec}' names no file`);
      if (!reached.has(target)) {
        reached.set(target, [...reached.get(file)!, target]);
        queue.push(target);
      }
    }
  }
  return reached;
}

const rel = (chain: string[]) => chain.map((p) => (p.startsWith(root) ? relative(root, p) : p)).join(' -> ');

describe("the training worker's static imports", () => {
  const graph = staticGraph(resolve(root, 'src/app/worker/trainer.worker.ts'));

  it('reach the trainer and the grading entry points', () => {
    // the walk is real: it reaches the trainer, the checker's host side and the grading code
    for (const f of [
      'src/rl/trainer.ts',
      'src/rl/grade.ts',
      'src/rl/verifier/checker.ts',
      'src/app/worker/checker-web.ts',
    ]) {
      expect(graph.has(resolve(root, f)), f).toBe(true);
    }
  });

  it('do not load the LaTeX parser or the verifier that uses it', () => {
    const heavy = [
      '@cortex-js/compute-engine',
      resolve(root, 'src/rl/verifier/index.ts'),
      resolve(root, 'src/rl/verifier/parse.ts'),
    ];
    expect(heavy.filter((h) => graph.has(h)).map((h) => rel(graph.get(h)!))).toEqual([]);
  });

  it("the checker's worker does load it (grading still has its parser)", () => {
    expect(staticGraph(resolve(root, 'src/app/worker/checker.worker.ts')).has('@cortex-js/compute-engine')).toBe(true);
  });
});
