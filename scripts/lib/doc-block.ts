// Rewrites one generated block of a Markdown file, between `<!-- <name>:begin -->` and `<!-- <name>:end -->` (the
// markers are kept, so the block can be regenerated); the rest of the file is left as it is.
import { readFileSync, writeFileSync } from 'node:fs';

export function replaceBlock(file: string, name: string, content: string): void {
  const text = readFileSync(file, 'utf8');
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file}: no ${begin} ... ${end} block`);
  writeFileSync(file, `${text.slice(0, i + begin.length)}\n${content.trim()}\n${text.slice(j)}`);
}
