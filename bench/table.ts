// Side-by-side tables: one row per measure, the baseline, us, and our figure as a ratio of its.

export interface Row {
  measure: string;
  baseline: number | undefined;
  ours: number | undefined;
  /** Digits after the point (default 1). */
  digits?: number;
  /** An interval for the ratio, shown beside it. */
  interval?: readonly [number, number];
}

export function printTable(title: string, rows: readonly Row[], notes: readonly string[] = []): void {
  const fmt = (n: number | undefined, digits: number) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));
  const lines = [`### ${title}`, '', '| measure | baseline | admission-chain | ratio (ours / baseline) |', '|---|---:|---:|---:|'];
  for (const row of rows) {
    const digits = row.digits ?? 1;
    const interval = row.interval === undefined ? '' : ` (${row.interval[0].toFixed(2)}–${row.interval[1].toFixed(2)})`;
    const ratio =
      row.baseline !== undefined && row.ours !== undefined && row.baseline !== 0
        ? `${(row.ours / row.baseline).toFixed(2)}${interval}`
        : '—';
    lines.push(`| ${row.measure} | ${fmt(row.baseline, digits)} | ${fmt(row.ours, digits)} | ${ratio} |`);
  }
  for (const note of notes) lines.push('', note);
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
