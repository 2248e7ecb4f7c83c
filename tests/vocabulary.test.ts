// One vocabulary in identifiers (issue 26): the American spelling (optimizer, normalize, color, as the platform's
// APIs spell them), and the GPU (a WebGPU adapter) in our own names apart from LoRA adapters. Comments, strings,
// UI text and link or file keys may keep another spelling; identifiers may not. Identifiers are read from the
// parser's AST (vite's oxc parser), so comments, string literals, template text and JSX text do not count.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** British spellings of words the code names things with */
const BRITISH = /colour|optimis|normalis/i;
/** our own GPU-side names that read as a LoRA adapter (the API's requestAdapter, GPUAdapter, adapter.info stay) */
const GPU_AS_ADAPTER =
  /^(adapterText|adapterIdentity|adapterLines?|adapterDescription|adapterEngineFeatures|isSoftwareAdapter|describeAdapter|findAdapter|getTestAdapter|useAdapterLimits|AdapterView|AdapterLookup|NO_ADAPTER)$/;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' || name === 'node_modules' ? [] : walk(p);
    return /\.(ts|tsx|mjs)$/.test(name) ? [p] : [];
  });
}

/** Text with comments and string / template literals blanked, for files the TypeScript parser refuses
 *  (AssemblyScript's decorators on functions). */
function codeOnly(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, ' ');
}

/** Every identifier name in a file: AST identifiers, or the words of its code where it does not parse. */
function identifiers(file: string, text: string): string[] {
  const { program, errors } = parseSync(file, text);
  if (errors.length > 0) return codeOnly(text).match(/[A-Za-z_$][\w$]*/g) ?? [];
  const names: string[] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const c of n) visit(c);
      return;
    }
    if (!n || typeof n !== 'object') return;
    const node = n as { type?: string; name?: unknown };
    if (
      (node.type === 'Identifier' || node.type === 'JSXIdentifier' || node.type === 'PrivateIdentifier') &&
      typeof node.name === 'string'
    )
      names.push(node.name);
    for (const [k, v] of Object.entries(n)) if (k !== 'type') visit(v);
  };
  visit(program);
  return names;
}

const files = ['src', 'tests', 'scripts', 'bench'].flatMap((d) => walk(join(root, d)));
let namesByFile: Map<string, Set<string>> | null = null;

/** `file: name` for each identifier in src, tests, scripts and bench that passes `test` */
function offenders(test: (name: string) => boolean): string[] {
  namesByFile ??= new Map(files.map((f) => [relative(root, f), new Set(identifiers(f, readFileSync(f, 'utf8')))]));
  return [...namesByFile].flatMap(([f, names]) => [...names].filter(test).map((n) => `${f}: ${n}`));
}

describe('vocabulary', () => {
  it('reads identifiers only: comments, strings, template and JSX text do not count', () => {
    const text = [
      '// a colour in a comment; /* optimiser */',
      "const a = 'colour'; const b = `normalise ${optimiserSteps}`;",
      'const el = <span data-x="colour">Colour</span>;',
      'type T = { normaliseRows: number }; class K { #colourIndex = 1 }',
    ].join('\n');
    expect(identifiers('x.tsx', text).filter((n) => BRITISH.test(n))).toEqual([
      'optimiserSteps',
      'normaliseRows',
      'colourIndex',
    ]);
    expect(
      identifiers('x.ts', '@inline function f(colourA: i32): void {} // colourB\n').filter((n) => BRITISH.test(n)),
    ).toEqual(['colourA']);
  });

  it('identifiers use the American spelling (color, optimizer, normalize)', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(offenders((n) => BRITISH.test(n))).toEqual([]);
  });

  it("identifiers of our own that name the GPU say gpu, not adapter (a LoRA adapter's word)", () => {
    expect(offenders((n) => GPU_AS_ADAPTER.test(n))).toEqual([]);
  });
});
