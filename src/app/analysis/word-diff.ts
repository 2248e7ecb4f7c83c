// Word-level difference between two texts (longest common subsequence of words), so presenter mode can highlight
// what changed in the followed problem's plan and reasoning since the previous refresh.

export interface DiffPart {
  text: string;
  /** same: in both; added: only in the new text; removed: only in the old one */
  kind: 'same' | 'added' | 'removed';
}

/** Words and the spaces after them are kept together, so joining every part's text gives back either input. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

const key = (w: string) => w.trim();

/** The parts of `after` and `before`, in reading order (a removed word comes before the word that replaced it). */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = words(before);
  const b = words(after);
  // lcs[i][j]: length of the longest common subsequence of a[i:] and b[j:]
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => Array.from({ length: b.length + 1 }, () => 0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i][j] = key(a[i]) === key(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const parts: DiffPart[] = [];
  const push = (text: string, kind: DiffPart['kind']) => {
    const last = parts.at(-1);
    if (last && last.kind === kind) last.text += text;
    else parts.push({ text, kind });
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && key(a[i]) === key(b[j])) {
      push(b[j], 'same');
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      if (i < a.length && lcs[i][j + 1] === lcs[i + 1][j]) push(a[i++], 'removed');
      else push(b[j++], 'added');
    } else push(a[i++], 'removed');
  }
  return parts;
}

/** Words added plus words removed. */
export function changedWords(parts: readonly DiffPart[]): number {
  return parts.filter((p) => p.kind !== 'same').reduce((n, p) => n + (p.text.match(/\S+/g)?.length ?? 0), 0);
}
