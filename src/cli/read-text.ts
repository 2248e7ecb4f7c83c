// Reading a user's text file (chats, problems, configs, grids, answers) the one way every command does: UTF-8,
// a leading byte-order mark dropped (src/util/text.ts).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { withoutBom } from '../util/text.ts';

/** The file's text, UTF-8, without a leading byte-order mark. */
export async function readText(path: string): Promise<string> {
  return withoutBom(await readFile(path, 'utf8'));
}

/** readText, synchronously. */
export function readTextSync(path: string): string {
  return withoutBom(readFileSync(path, 'utf8'));
}
