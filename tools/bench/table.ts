/** Markdown tables and the figures in them. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
