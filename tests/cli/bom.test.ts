// A UTF-8 byte-order mark at the start of a file is taken the same way by every reader: SFT chats, problem sets,
// a config file, a sweep grid and `rema verify` input read as without it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromFlags } from '../../src/cli/config-flags.ts';
import { readText } from '../../src/cli/read-text.ts';
import { loadSftChats, sftFromFlags } from '../../src/cli/sft.ts';
import { parseProblems } from '../../src/data/datasets.ts';
import { parseJsonl } from '../../src/data/jsonl.ts';

const BOM = '\uFEFF';

describe('a leading byte-order mark', () => {
  it('is dropped by rema sft, the config reader and the JSONL readers alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rema-bom-'));
    const chats = join(dir, 'chats.jsonl');
    const line = JSON.stringify({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
    });
    writeFileSync(chats, BOM + line + '\n');
    const run = sftFromFlags({ data: [chats] });
    const [set] = await loadSftChats(run.config, run.sft);
    expect(set.chats.map((c) => c.line)).toEqual([1]);

    const config = join(dir, 'config.json');
    writeFileSync(config, BOM + JSON.stringify({ extends: 'tiny-default', steps: 3 }));
    expect((await configFromFlags({ config })).steps).toBe(3);

    expect(parseJsonl(BOM + '{"a":1}\n', 'x.jsonl')).toEqual([{ line: 1, value: { a: 1 } }]);
    expect(parseProblems(BOM + JSON.stringify({ question: '1+1?', answer: '2' }) + '\n', 'p.jsonl')).toHaveLength(1);
    const grid = join(dir, 'grid.json');
    writeFileSync(grid, BOM + '{"lr": [1e-3]}');
    expect(JSON.parse(await readText(grid))).toEqual({ lr: [1e-3] });
  });
});
