// A fresh `npm ci` works offline from everything but the npm registry and prints no warning: every dependency
// install script is decided in package.json's allowScripts, and the Node versions the README promises
// (package.json `engines.node`) are the ones every installed package declares; the one exception, @cortex-js/compute-engine (it declares
// Node >= 22.3 but is the answer checker's LaTeX parser), is checked for the built-ins that Node 20 lacks.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

type Semver = { satisfies(v: string, r: string): boolean; minVersion(r: string): { version: string } | null };
const semver = createRequire(import.meta.url)('semver') as Semver;
const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string; npm: string };
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; hasInstallScript?: boolean }>;
};

/** Declared ranges that exclude the oldest Node the project supports, by package path. */
const EXCEPTIONS = new Set(['node_modules/@cortex-js/compute-engine']);

// Static built-ins added after Node 20 (V8 11.3): using any of them would break the checker on Node 20. (New
// instance methods such as Set's isDisjointFrom cannot be told from the library's own methods of the same name;
// the verifier's tests, which run here on Node 20, cover the code paths the checker uses.)
const NEWER_BUILTINS = [
  'Promise.withResolvers',
  'Object.groupBy',
  'Map.groupBy',
  'Array.fromAsync',
  'Iterator.from',
  'RegExp.escape',
  'Math.sumPrecise',
  'Math.f16round',
  'Error.isError',
  'Promise.try',
  'Uint8Array.fromBase64',
  'Atomics.pause',
  'Temporal.',
  'new Float16Array',
];

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsFiles(path);
    return /\.(m?js|cjs)$/.test(name) ? [path] : [];
  });
}

describe('supported Node versions', () => {
  const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';

  it('package.json names a Node 20 release as the oldest supported', () => {
    expect(oldest).toMatch(/^20\./);
    expect(process.versions.node.startsWith('20.') || semver.satisfies(process.versions.node, pkg.engines.node)).toBe(
      true,
    );
  });

  it('every installed package declares a range that includes it, but the listed exceptions', () => {
    const excluding = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node !== undefined)
      .filter(([, p]) => !semver.satisfies(oldest, (p.engines as { node: string }).node))
      .map(([path]) => path);
    expect(excluding.filter((p) => !EXCEPTIONS.has(p))).toEqual([]);
    expect(excluding.toSorted()).toEqual([...EXCEPTIONS].toSorted());
  });

  it('every dependency install script is decided in allowScripts (npm >= 11.16), none downloading at install', () => {
    expect(semver.minVersion(pkg.engines.npm)?.version).toBe('11.16.0');
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !(name in pkg.allowScripts))).toEqual([]);
    // onnxruntime-node's script fetches CUDA files from a host outside the npm registry.
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false);
  });

  it('the compute engine uses no built-in that Node 20 lacks', () => {
    const files = jsFiles(join(root, 'node_modules/@cortex-js/compute-engine/dist/esm-min'));
    expect(files.length).toBeGreaterThan(3);
    const found = files.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return NEWER_BUILTINS.filter((b) => text.includes(b)).map((b) => `${b} in ${f}`);
    });
    expect(found).toEqual([]);
  });
});
