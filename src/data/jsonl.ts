// JSON Lines parsing with errors that name the file and the line (1-based). Blank lines are skipped; a leading
// byte-order mark is not part of the first line.

import { withoutBom } from '../util/text.ts';

export interface JsonlRow {
  /** 1-based line number in the file */
  line: number;
  value: unknown;
}

export class DataFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataFormatError';
  }
}

export function parseJsonl(text: string, file: string): JsonlRow[] {
  const rows: JsonlRow[] = [];
  const lines = withoutBom(text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    try {
      rows.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (e) {
      throw new DataFormatError(`${file}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
  }
  return rows;
}
