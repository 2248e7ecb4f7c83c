// Renders model text with its math typeset by KaTeX: $...$, $$...$$, \(...\), \[...\] and \boxed{...}
// (with nested braces). Malformed LaTeX shows as red source (throwOnError: false), never as a crash.
import katex from 'katex';
import 'katex/dist/katex.min.css';
import { Fragment, useMemo } from 'react';

export type MathPiece = { kind: 'text'; text: string } | { kind: 'math'; tex: string; display: boolean };

/** index just past the brace group starting at `open` (text[open] === '{'), or -1 when unbalanced */
function closeBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

const delimiters: readonly [string, string, boolean][] = [
  ['$$', '$$', true],
  ['\\[', '\\]', true],
  ['\\(', '\\)', false],
  ['$', '$', false],
];

/** Splits text into plain and math pieces. Exported for tests. */
export function splitMath(text: string): MathPiece[] {
  const out: MathPiece[] = [];
  let plain = '';
  let i = 0;
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  outer: while (i < text.length) {
    if (text.startsWith('\\boxed{', i)) {
      const end = closeBrace(text, i + 6);
      if (end > 0) {
        flush();
        out.push({ kind: 'math', tex: text.slice(i, end), display: false });
        i = end;
        continue;
      }
    }
    for (const [open, close, display] of delimiters) {
      if (text.startsWith(open, i)) {
        const end = text.indexOf(close, i + open.length);
        const body = end < 0 ? '' : text.slice(i + open.length, end);
        if (end > 0 && body.trim() !== '' && !(open === '$' && body.includes('\n'))) {
          flush();
          out.push({ kind: 'math', tex: body, display });
          i = end + close.length;
          continue outer;
        }
      }
    }
    plain += text[i++];
  }
  flush();
  return out;
}

export function MathText({ text, className }: { text: string; className?: string }) {
  const pieces = useMemo(() => splitMath(text), [text]);
  return (
    <span className={className}>
      {pieces.map((p, i) =>
        p.kind === 'text' ? (
          <Fragment key={i}>{p.text}</Fragment>
        ) : (
          <span
            key={i}
            className="math"
            dangerouslySetInnerHTML={{
              __html: katex.renderToString(p.tex, {
                displayMode: p.display,
                throwOnError: false,
                strict: 'ignore',
                trust: false,
              }),
            }}
          />
        ),
      )}
    </span>
  );
}
