// Keeps the layering honest: engine, rl, data and util never import React, the DOM or node:*,
// nothing imports app/ or cli/, rl never reaches into app/cli, and engine/data never import rl.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

const importRe = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

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

const at = (layer: string, text: string): SourceFile => ({ file: join(src, layer, 'x.ts'), text });
const read = (file: string): SourceFile => ({ file, text: readFileSync(file, 'utf8') });

describe('architecture', () => {
  it('has the documented layers', () => {
    for (const layer of ['engine', 'rl', 'data', 'app', 'cli', 'util']) {
      expect(statSync(join(src, layer)).isDirectory()).toBe(true);
    }
  });

  it('import graph respects the layering', () => {
    expect(violations(walk(src).map(read))).toEqual([]);
  });

  it('the checker catches each kind of forbidden edge', () => {
    expect(violations([at('engine', "import { readFile } from 'node:fs';")])).toHaveLength(1);
    expect(violations([at('rl', "import { useState } from 'react';")])).toHaveLength(1);
    expect(violations([at('data', "const el = document.createElement('div');")])).toHaveLength(1);
    expect(violations([at('engine', "import { train } from '../rl/trainer.ts';")])).toHaveLength(1);
    expect(violations([at('rl', "export { x } from '../cli/main.ts';")])).toHaveLength(1);
    expect(violations([at('app', "const m = await import('../cli/main.ts');")])).toHaveLength(1);
    expect(violations([at('rl', "import type { Policy } from '../engine/policy.ts';")])).toEqual([]);
    expect(violations([at('cli', "import { readFile } from 'node:fs/promises';")])).toEqual([]);
  });
});
