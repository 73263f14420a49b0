// Scenario 6's tables: the baseline and admission-chain in both --authorizer modes side by side,
// each mode also as a ratio of the baseline.

export interface ModeRow {
  measure: string;
  baseline?: number | undefined;
  sar: number | undefined;
  mirror: number | undefined;
  /** Digits after the point (default 1). */
  digits?: number;
  /** A 95 % interval for each mode's ratio to the baseline. */
  intervals?: { sar: readonly [number, number]; mirror: readonly [number, number] };
}

export function printModeTable(title: string, rows: readonly ModeRow[], notes: readonly string[] = []): void {
  const fmt = (n: number | undefined, digits: number) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));
  const ratio = (ours: number | undefined, baseline: number | undefined, interval?: readonly [number, number]) =>
    ours === undefined || baseline === undefined || baseline === 0
      ? '—'
      : `${(ours / baseline).toFixed(2)}${interval ? ` (${interval[0].toFixed(2)}–${interval[1].toFixed(2)})` : ''}`;
  const lines = [
    `### ${title}`,
    '',
    '| measure | baseline | --authorizer=sar | --authorizer=rbac-mirror | sar ÷ baseline | rbac-mirror ÷ baseline |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const digits = row.digits ?? 1;
    lines.push(
      `| ${row.measure} | ${fmt(row.baseline, digits)} | ${fmt(row.sar, digits)} | ${fmt(row.mirror, digits)} | ${ratio(row.sar, row.baseline, row.intervals?.sar)} | ${ratio(row.mirror, row.baseline, row.intervals?.mirror)} |`,
    );
  }
  for (const note of notes) lines.push('', note);
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
