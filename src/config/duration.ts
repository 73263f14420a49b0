// Go-style durations ("9s", "500ms", "1m30s") for flags, so values read like kube-apiserver's.
const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or throws with a message naming the bad value. Bare numbers are seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (const match of trimmed.matchAll(pattern)) {
    total += Number(match[1]) * units[match[2]!]!;
    matched += match[0].length;
  }
  if (trimmed === '' || matched !== trimmed.length) {
    throw new Error(`invalid duration ${JSON.stringify(text)}: use a number with a unit, like 500ms, 9s or 1m`);
  }
  return Math.round(total);
}
