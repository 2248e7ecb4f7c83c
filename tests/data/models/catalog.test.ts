// The offline model catalog (src/data/models): every shipped config.json goes through the engine's own parser,
// its parameter count (from the parser's config and the engine's parameter list) matches the entry and the
// published figures, the download size matches the parameters in the shipped dtype, and a catalog name works
// wherever the CLI takes a hub id (served from the hub cache, no network).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openModelSource } from '../../../src/cli/hub.ts';
import { findCatalogModel, MODEL_CATALOG, resolveCatalogRepo } from '../../../src/data/models/catalog.ts';
import { parseHfConfig } from '../../../src/engine/io/hf-config.ts';
import { parameterCount } from '../../../src/engine/plan/memory.ts';

describe('model catalog', () => {
  it('lists the known models, each with a licence, a template family and its sources', () => {
    expect(MODEL_CATALOG.map((m) => m.repo)).toEqual([
      'Qwen/Qwen2.5-0.5B-Instruct',
      'Qwen/Qwen2.5-1.5B-Instruct',
      'Qwen/Qwen2.5-Math-1.5B-Instruct',
      'HuggingFaceTB/SmolLM2-135M-Instruct',
      'HuggingFaceTB/SmolLM2-360M-Instruct',
      'HuggingFaceTB/SmolLM2-1.7B-Instruct',
      'meta-llama/Llama-3.2-1B-Instruct',
    ]);
    for (const m of MODEL_CATALOG) {
      expect(['apache-2.0', 'llama3.2']).toContain(m.license);
      expect(['chatml', 'llama3']).toContain(m.chatTemplate);
      expect(m.sources.length, m.name).toBeGreaterThan(0);
    }
  });

  it("Qwen2.5-0.5B-Instruct has 494,032,768 parameters through the engine's config parser", () => {
    const config = parseHfConfig(findCatalogModel('Qwen/Qwen2.5-0.5B-Instruct')!.config, 'qwen2.5-0.5b-instruct.json');
    expect(config.tieWordEmbeddings).toBe(true);
    expect(parameterCount(config)).toBe(494_032_768);
  });

  it('every entry parses, and its parameters and download size follow from its config', () => {
    // published totals (model cards / hub file listings) of the other models
    const published: Record<string, number> = {
      'smollm2-135m-instruct': 134_515_008,
      'smollm2-360m-instruct': 361_821_120,
      'smollm2-1.7b-instruct': 1_711_376_384,
      'llama-3.2-1b-instruct': 1_235_814_400,
      'qwen2.5-1.5b-instruct': 1_543_714_304,
    };
    // every published total is checked: a renamed catalog entry must not skip its check
    expect(Object.keys(published).filter((name) => !MODEL_CATALOG.some((m) => m.name === name))).toEqual([]);
    for (const m of MODEL_CATALOG) {
      const config = parseHfConfig(m.config, `${m.name}.json`);
      const n = parameterCount(config);
      expect(n, m.name).toBe(m.parameters);
      if (published[m.name] !== undefined) expect(n, m.name).toBe(published[m.name]);
      // bf16 tensors, plus at most 1 MiB of safetensors header
      expect(m.downloadBytes - 2 * n, m.name).toBeGreaterThanOrEqual(0);
      expect(m.downloadBytes - 2 * n, m.name).toBeLessThan(1 << 20);
    }
    expect(parseHfConfig(findCatalogModel('llama-3.2-1b-instruct')!.config).ropeScaling?.type).toBe('llama3');
  });

  it('finds entries by name or repo id (any case, @revision kept) and leaves other specs alone', () => {
    expect(findCatalogModel('SmolLM2-360M-Instruct'.toLowerCase())?.repo).toBe('HuggingFaceTB/SmolLM2-360M-Instruct');
    expect(findCatalogModel('huggingfacetb/smollm2-360m-instruct')?.name).toBe('smollm2-360m-instruct');
    expect(resolveCatalogRepo('qwen2.5-0.5b-instruct@v1')).toBe('Qwen/Qwen2.5-0.5B-Instruct@v1');
    expect(resolveCatalogRepo('someone/other-model')).toBe('someone/other-model');
    expect(findCatalogModel('qwen2.5-7b')).toBeNull();
  });

  it('the CLI opens a catalog name as its hub repo (from the cache, offline)', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'rema-catalog-'));
    const snap = join(cacheDir, 'models--Qwen--Qwen2.5-0.5B-Instruct', 'snapshots', 'main');
    mkdirSync(snap, { recursive: true });
    writeFileSync(join(snap, 'config.json'), JSON.stringify(findCatalogModel('qwen2.5-0.5b-instruct')!.config));
    const source = openModelSource('qwen2.5-0.5b-instruct', { cacheDir, offline: true });
    expect(source.name).toBe('hf://Qwen/Qwen2.5-0.5B-Instruct@main');
    const bytes = await source.read('config.json');
    expect(JSON.parse(new TextDecoder().decode(bytes!)).hidden_size).toBe(896);
  });
});
