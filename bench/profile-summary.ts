// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=1): where self time goes, by function and by
// file, so the hot path is read from data rather than guessed. node bench/profile-summary.ts FILE [N]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const top = Number(topArg ?? 30);
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^file:\/\/.*?\/(node_modules|src|bench|test)\//, '$1/').replace(/^node:/, 'node:');
  const fn = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  const fileKey = short.startsWith('node_modules/')
    ? short
        .split('/')
        .slice(0, short.startsWith('node_modules/@') ? 3 : 2)
        .join('/')
    : short || `(${functionName})`;
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + micros);
}
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${((micros / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
};
print('self time by function', byFunction);
print('self time by file or package', byFile);
