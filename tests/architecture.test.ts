// Keeps the layering honest: engine, rl, data and util never import React, the DOM or node:*,
// nothing imports app/ or cli/, rl never reaches into app/cli, and engine/data never import rl; and no file in src
// reaches itself through its imports (type-only and dynamic ones included): a cycle means tangled ownership.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.(ts|tsx|mjs)$/.test(name) ? [p] : [];
  });
}

const importRe =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function importsOf(text: string): string[] {
  return [...text.matchAll(importRe)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function layerOf(file: string): string {
  return relative(src, file).split(/[\\/]/)[0];
}

const core = new Set(['engine', 'rl', 'data', 'util']);
const uiPackages = /^(react|react-dom|zustand|recharts|katex|idb)(\/|$)/;
const allowed: Record<string, Set<string>> = {
  util: new Set(['util']),
  engine: new Set(['engine', 'util']),
  data: new Set(['data', 'util']),
  rl: new Set(['rl', 'engine', 'data', 'util']),
  app: new Set(['app', 'rl', 'engine', 'data', 'util']),
  cli: new Set(['cli', 'rl', 'engine', 'data', 'util']),
};

interface SourceFile {
  file: string;
  text: string;
}

function violations(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    const layer = layerOf(file);
    for (const spec of importsOf(text)) {
      const where = `${relative(root, file)} imports '${spec}'`;
      if (core.has(layer) && (spec.startsWith('node:') || uiPackages.test(spec))) out.push(`${where} (core layer)`);
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(src)) continue;
        const targetLayer = layerOf(target);
        if (!(allowed[layer] ?? new Set()).has(targetLayer)) out.push(`${where} (${layer} -> ${targetLayer})`);
      }
    }
    if (core.has(layer)) {
      if (/\b(document|window)\.\w/.test(text)) out.push(`${relative(root, file)} touches the DOM`);
    }
  }
  return out;
}

/** The file a relative specifier names: as written, or with the extension the bundler would add. */
function resolveSpecifier(from: string, spec: string, exists: (p: string) => boolean): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mjs`]) {
    if (/\.(ts|tsx|mjs)$/.test(candidate) && exists(candidate)) return candidate;
  }
  return null;
}

/** Every import cycle found by a depth-first walk of the relative imports, each as `a -> b -> ... -> a`. */
function cycles(files: SourceFile[]): string[] {
  const known = new Set(files.map((f) => f.file));
  const edges = new Map<string, string[]>();
  for (const { file, text } of files) {
    const targets = importsOf(text)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolveSpecifier(file, spec, (p) => known.has(p)))
      .filter((p): p is string => p !== null);
    edges.set(file, [...new Set(targets)]);
  }
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (file: string): void => {
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (onStack.has(next)) {
        found.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(root, f)).join(' -> '));
      } else if (!done.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    onStack.delete(file);
    done.add(file);
  };
  for (const file of [...edges.keys()].toSorted()) if (!done.has(file)) visit(file);
  return found;
}

const at = (layer: string, text: string): SourceFile => ({ file: join(src, layer, 'x.ts'), text });
const read = (file: string): SourceFile => ({ file, text: readFileSync(file, 'utf8') });

describe('architecture', () => {
  it('has the documented layers', () => {
    for (const layer of ['engine', 'rl', 'data', 'app', 'cli', 'util']) {
      expect(statSync(join(src, layer)).isDirectory()).toBe(true);
    }
  });

  it('import graph respects the layering', () => {
    const files = walk(src).map(read);
    expect(files.length).toBeGreaterThan(200);
    expect(violations(files)).toEqual([]);
  });

  it('src has no import cycles (type-only and dynamic imports count)', () => {
    const files = walk(src).map(read);
    expect(files.length).toBeGreaterThan(200);
    expect(cycles(files)).toEqual([]);
  });

  it('the cycle finder names each kind of cycle', () => {
    const file = (name: string, text: string): SourceFile => ({ file: join(src, name), text });
    expect(
      cycles([
        file('engine/a.ts', "import type { B } from './b.ts';"),
        file('engine/b.ts', "import type { A } from './a.ts';"),
      ]),
    ).toEqual(['src/engine/a.ts -> src/engine/b.ts -> src/engine/a.ts']);
    expect(
      cycles([
        file('rl/x.ts', "export { y } from './y.ts';"),
        file('rl/y.ts', "import { z } from './sub/z';"),
        file('rl/sub/z.ts', "const x = await import('../x.ts');"),
      ]),
    ).toEqual(['src/rl/sub/z.ts -> src/rl/x.ts -> src/rl/y.ts -> src/rl/sub/z.ts']);
    expect(cycles([file('util/self.ts', "import './self.ts';")])).toEqual(['src/util/self.ts -> src/util/self.ts']);
    expect(
      cycles([
        file('engine/a.ts', "import { b } from './b.ts';"),
        file('engine/b.ts', "import { c } from './c.ts';"),
        file('engine/c.ts', "import { readFile } from 'node:fs';"),
      ]),
    ).toEqual([]);
    expect(resolveSpecifier(join(src, 'engine/kernels/wasm/as/matmul.ts'), './simd', existsSync)).toBe(
      join(src, 'engine/kernels/wasm/as/simd.ts'),
    );
  });

  it('the engine layout: policies in policy/, host code per backend in backends/<kind>/, device code in kernels/', () => {
    const engine = join(src, 'engine');
    const under = (dir: string) => walk(join(engine, dir)).map((f) => relative(engine, f).replaceAll('\\', '/'));
    const implementers = walk(src).filter((f) => /\bimplements\s+(Trainable)?Policy\b/.test(readFileSync(f, 'utf8')));
    expect(implementers.map((f) => relative(engine, f).replaceAll('\\', '/')).toSorted()).toEqual([
      'policy/engine-policy.ts',
      'policy/onnx-frozen-policy.ts',
    ]);
    expect(
      readdirSync(join(engine, 'backends'))
        .filter((n) => n.endsWith('.ts'))
        .toSorted(),
    ).toEqual(['cpu.ts', 'wasm.ts', 'webgpu.ts']);
    expect(under('backends/webgpu')).toContain('backends/webgpu/runtime.ts');
    expect(under('backends/wasm')).toContain('backends/wasm/runtime.ts');
    expect(under('kernels/wasm').filter((f) => !f.startsWith('kernels/wasm/as/'))).toEqual([
      'kernels/wasm/modules.generated.ts',
    ]);
    expect(existsSync(join(engine, 'index.ts'))).toBe(false);
  });

  it('the checker catches each kind of forbidden edge', () => {
    expect(violations([at('engine', "import { readFile } from 'node:fs';")])).toHaveLength(1);
    expect(violations([at('rl', "import { useState } from 'react';")])).toHaveLength(1);
    expect(violations([at('data', "const el = document.createElement('div');")])).toHaveLength(1);
    expect(violations([at('engine', "import { train } from '../rl/trainer.ts';")])).toHaveLength(1);
    expect(violations([at('rl', "export { x } from '../cli/main.ts';")])).toHaveLength(1);
    expect(violations([at('app', "const m = await import('../cli/main.ts');")])).toHaveLength(1);
    expect(violations([at('rl', "import type { Policy } from '../engine/policy/policy.ts';")])).toEqual([]);
    expect(violations([at('cli', "import { readFile } from 'node:fs/promises';")])).toEqual([]);
  });
});
