// A text with the words changed since an earlier version highlighted (added: green, removed: struck out), for the
// plan timeline and presenter mode's live problem.
import { useMemo } from 'react';
import { wordDiff } from '../../analysis/word-diff.ts';

export function DiffText({ before, text, testId }: { before: string | null; text: string; testId?: string }) {
  const parts = useMemo(
    () => (before === null ? [{ text, kind: 'same' as const }] : wordDiff(before, text)),
    [before, text],
  );
  return (
    <span
      className="diff-text"
      data-testid={testId}
      data-changed={parts.some((p) => p.kind !== 'same') ? 'true' : 'false'}
    >
      {parts.map((p, i) =>
        p.kind === 'same' ? (
          <span key={i}>{p.text}</span>
        ) : p.kind === 'added' ? (
          <ins key={i} className="diff-added">
            {p.text}
          </ins>
        ) : (
          <del key={i} className="diff-removed">
            {p.text}
          </del>
        ),
      )}
    </span>
  );
}
