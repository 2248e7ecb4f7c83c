// Writes bench/RESULTS.md from the JSON files the benchmarks leave in bench/results/: the last `npm run bench`
// (summary.json: machine, versions, git commit, each part's wall time and its printed ratios against the peers),
// then every other part's file as tables. Nothing in it is typed by hand, so the page always says what the files
// say, and a rerun of any benchmark followed by this script updates it.
//   npx tsx bench/report.ts [--results bench/results] [--out bench/RESULTS.md]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const root = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    results: { type: 'string', default: join(root, 'bench/results') },
    out: { type: 'string', default: join(root, 'bench/RESULTS.md') },
  },
});
const dir = resolve(args.results!);

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const cell = (v: Json | undefined): string => {
  if (v === undefined || v === null) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (Array.isArray(v) && v.every((x) => !isObj(x) && !Array.isArray(x))) return v.map(cell).join(', ');
  if (typeof v === 'object') return JSON.stringify(v).replaceAll('|', '\\|');
  return String(v).replaceAll('|', '\\|').replaceAll('\n', ' ');
};

/** Nested objects as dotted keys ({a: {b: 1}} -> {"a.b": 1}); arrays stay values. */
function flatten(o: Obj, prefix = ''): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(o)) {
    if (isObj(v) && Object.keys(v).length > 0) Object.assign(out, flatten(v, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

function table(rows: Record<string, Json>[], first?: string): string[] {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (first) (cols.splice(cols.indexOf(first), 1), cols.unshift(first));
  return [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
  ];
}

/** One part's file: its scalars as a list, arrays of records and maps of records as tables. */
function part(name: string, data: Json): string[] {
  const out = [`## ${name}`, '', `\`bench/results/${name}.json\``, ''];
  if (!isObj(data)) return [...out, '```', JSON.stringify(data, null, 1), '```', ''];
  const scalars: string[] = [];
  const tables: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (Array.isArray(value) && value.length > 0 && value.every(isObj)) {
      tables.push(`### ${key}`, '', ...table(value.map((v) => flatten(v as Obj))), '');
    } else if (isObj(value) && Object.values(value).length > 0 && Object.values(value).every(isObj)) {
      const rows = Object.entries(value).map(([k, v]) => ({ [key]: k, ...flatten(v as Obj) }));
      tables.push(`### ${key}`, '', ...table(rows, key), '');
    } else if (isObj(value)) {
      for (const [k, v] of Object.entries(flatten(value))) scalars.push(`- ${key}.${k}: ${cell(v)}`);
    } else scalars.push(`- ${key}: ${cell(value)}`);
  }
  return [...out, ...scalars, ...(scalars.length ? [''] : []), ...tables];
}

/** bench:gpu's file (gpu-real*.json): the adapter, the self-test's checks, then per model shape its decode, tiles,
 * kernels, GRPO step and (with --timestamps) GPU milliseconds per kernel class, as tables. */
function gpuPart(name: string, data: Obj): string[] {
  const st = isObj(data.self_test) ? data.self_test : {};
  const out = [`## ${name}`, '', `\`bench/results/${name}.json\``, ''];
  out.push(
    `- adapter: ${cell(data.adapter)}; ${data.smoke ? 'smoke shapes' : 'real shapes'}; peak GB/s ${cell(data.peak_gbs)}; ${cell(data.date)}, node ${cell(data.node)}`,
    `- adapter features: ${cell(st.features)}`,
    `- self-test: ${st.ok ? 'ok' : 'FAILED'} in ${cell(st.seconds)} s, base ${cell(isObj(st.engine) ? st.engine.storages : null)}, fixtures ${cell(st.fixtures)}`,
    '',
  );
  if (Array.isArray(st.checks)) out.push(...table(st.checks.filter(isObj).map((c) => flatten(c))), '');
  for (const m of Array.isArray(data.models) ? data.models.filter(isObj) : []) {
    out.push(`### ${cell(m.name)}`, '');
    out.push(
      `- ${cell(m.layers)} layers, ${cell(m.parameters)} parameters, base ${cell(m.base_dtype)}, LoRA merged ${cell(m.merged)}, load ${cell(m.load_s)} s, ledger peak ${cell(m.peak_bytes)} bytes, tile ${cell(isObj(m.autotune) ? m.autotune.best : null)}`,
    );
    if (isObj(m.grpo))
      out.push(
        `- GRPO step: ${cell(m.grpo.total_s)} s for ${cell(m.grpo.rollouts)} rollouts, ${cell(m.grpo.new_tokens)} new tokens; stages (ms) ${cell(m.grpo.stages_ms)}`,
      );
    out.push('');
    if (Array.isArray(m.decode)) out.push(...table(m.decode.filter(isObj).map((r) => flatten(r))), '');
    if (Array.isArray(m.matmul_tiles))
      out.push(
        ...table(
          m.matmul_tiles.filter(isObj).map((t) => ({
            shape: `${cell(t.M)} x ${cell(t.N)} x ${cell(t.K)}`,
            ...Object.fromEntries(
              (Array.isArray(t.results) ? t.results.filter(isObj) : []).map((r) => [
                `tile ${cell(r.tiled)} GFLOP/s`,
                r.gflops,
              ]),
            ),
            best: t.best,
          })),
        ),
        '',
      );
    if (Array.isArray(m.new_kernels)) out.push(...table(m.new_kernels.filter(isObj).map((r) => flatten(r))), '');
    if (isObj(m.kernel_ms))
      for (const [run, classes] of Object.entries(m.kernel_ms))
        if (isObj(classes))
          out.push(
            `GPU ms per kernel class, ${run} (each dispatch in its own pass):`,
            '',
            ...table(Object.entries(classes).map(([k, v]) => ({ kernel: k, ...(isObj(v) ? v : {}) }))),
            '',
          );
  }
  return out;
}

const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
if (files.length === 0) throw new Error(`${dir}: no benchmark results (run npm run bench first)`);
const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json;
const lines = [
  '# Benchmark results',
  '',
  'Generated by `npx tsx bench/report.ts` from `bench/results/*.json`; do not edit by hand. How each benchmark',
  'runs and what its numbers mean: [README.md](README.md). On a software WebGPU adapter the WebGPU figures are',
  'not GPU speeds.',
  '',
];
if (files.includes('summary.json')) {
  const s = read('summary.json') as Obj;
  lines.push(
    '## The last `npm run bench`',
    '',
    `Run ${cell(s.date)} at commit \`${cell(s.git)}\`${s.quick ? ' (--quick)' : ''}; parts: ${cell(s.parts)}.`,
    '',
  );
  if (isObj(s.machine))
    lines.push(
      `- machine: ${Object.entries(s.machine)
        .map(([k, v]) => `${k} ${cell(v)}`)
        .join(', ')}`,
    );
  if (isObj(s.versions))
    lines.push(
      `- versions: ${Object.entries(s.versions)
        .map(([k, v]) => `${k} ${cell(v)}`)
        .join(', ')}`,
    );
  if (isObj(s.wall_s))
    lines.push(
      `- wall time per part (s): ${Object.entries(s.wall_s)
        .map(([k, v]) => `${k} ${cell(v)}`)
        .join(', ')}`,
    );
  lines.push(
    '',
    'As the run printed it (ratio = ours / the named peer):',
    '',
    '```',
    ...((s.lines as string[]) ?? []),
    '```',
    '',
  );
}
for (const f of files.filter((f) => f !== 'summary.json').toSorted()) {
  const data = read(f);
  lines.push(...(f.startsWith('gpu-real') && isObj(data) ? gpuPart(f.slice(0, -5), data) : part(f.slice(0, -5), data)));
}
writeFileSync(resolve(args.out!), `${lines.join('\n').trimEnd()}\n`);
console.log(`wrote ${resolve(args.out!)} from ${files.length} files in ${dir}`);
