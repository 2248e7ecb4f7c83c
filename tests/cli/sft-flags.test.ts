// `rema sft --set sft.*`: the SFT settings are type-checked (a path list, not a string read character by
// character or a list of numbers), and `sft.files` alone selects the files as `--data` does.
import { describe, expect, it } from 'vitest';
import { sftFromFlags } from '../../src/cli/sft.ts';

describe('rema sft --set sft.files', () => {
  it('refuses a string or a list of non-paths, naming the setting', () => {
    for (const value of ['"chats.jsonl"', '[1]', '[""]', '{"a":1}', '7'])
      expect(() => sftFromFlags({ set: [`sft.data="files"`, `sft.files=${value}`] })).toThrow(
        /command line \(--set sft\.\* \/ --data\): invalid SFT settings:\n {2}"files" must be a list of chat JSONL paths/,
      );
  });

  it('reads the files when sft.data is not set, and refuses files with generated data', () => {
    expect(sftFromFlags({ preset: 'tiny-sft-meta', set: ['sft.files=["a.jsonl", "b.jsonl"]'] }).sft).toMatchObject({
      data: 'files',
      files: ['a.jsonl', 'b.jsonl'],
    });
    expect(() => sftFromFlags({ set: ['sft.data="tiny-cot"', 'sft.files=["a.jsonl"]'] })).toThrow(
      /"files" is only read when "data" is "files" \(it is "tiny-cot"\)/,
    );
    expect(sftFromFlags({ data: ['c.jsonl'] }).sft).toMatchObject({ data: 'files', files: ['c.jsonl'] });
  });
});
