/** Edits (insert, delete or replace a character, swap two neighbours) that turn a into b. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (same ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** " (did you mean --data-dir?)" for a name a typo away from a known one (two for longer names), else "". */
export function suggestion(name: string, known: string[], prefix: string): string {
  const typed = name.toLowerCase().replaceAll('_', '-');
  const best = known.map((k) => ({ k, d: editDistance(typed, k) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= (best.k.length <= 4 ? 1 : 2) ? ` (did you mean ${prefix}${best.k}?)` : '';
}
