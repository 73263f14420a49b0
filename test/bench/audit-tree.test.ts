// The audit scenario's tree (bench/audit-tree.ts): it holds what it says it holds, the count line
// it checks every timed run against is read back exactly, and a real audit of a small tree counts
// what the generator predicts — so a timed run that disagrees means the audit changed, not the bench.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseCountLine, writeTree } from '../../bench/audit-tree.ts';
import { countLine } from '../../src/cli/audit-output.ts';
import { emptySummary } from '../../src/cli/audit-results.ts';
import { runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const { dir } = scratchFiles('bench-audit');

/** Every document of every file under the tree, by kind, and the files' count. */
function read(tree: string): { files: number; kinds: Record<string, number>; names: Set<string> } {
  const kinds: Record<string, number> = {};
  const names = new Set<string>();
  let files = 0;
  for (const team of readdirSync(tree)) {
    for (const file of readdirSync(join(tree, team))) {
      files++;
      for (const doc of parseAllDocuments(readFileSync(join(tree, team, file), 'utf8'))) {
        const object = doc.toJS() as { kind: string; metadata: { name: string } };
        kinds[object.kind] = (kinds[object.kind] ?? 0) + 1;
        names.add(`${object.kind}/${object.metadata.name}`);
      }
    }
  }
  return { files, kinds, names };
}

describe('writeTree', () => {
  it('writes the pods over the files, one Deployment a file, every name different', () => {
    const tree = writeTree(join(dir, 'spread'), 1003, 100);
    const found = read(join(dir, 'spread'));
    expect(tree).toMatchObject({ files: 100, pods: 1003, deployments: 100, documents: 1103 });
    expect(found.files).toBe(100);
    expect(found.kinds).toEqual({ Pod: 1003, Deployment: 100 });
    expect(found.names.size).toBe(1103);
    expect(readdirSync(join(dir, 'spread')).sort()).toHaveLength(10);
  });

  it('writes no more files than pods, and refuses an empty tree', () => {
    const tree = writeTree(join(dir, 'few'), 3, 100);
    expect(tree).toMatchObject({ files: 3, pods: 3, deployments: 3 });
    expect(read(join(dir, 'few')).kinds).toEqual({ Pod: 3, Deployment: 3 });
    expect(() => writeTree(join(dir, 'none'), 0)).toThrow(/at least one pod/);
  });

  it('predicts what an audit with the default plugins counts', async () => {
    const path = join(dir, 'audited');
    const tree = writeTree(path, 17, 3);
    expect(tree.expected).toEqual({ objects: 20, created: 6, denied: 3, warned: 0, mutated: 9, skipped: 0, errors: 0 });
    const run = await runMain(['audit', path, '--cluster-state', 'examples/cluster-state.yaml', '-o', 'json']);
    expect(run.code).toBe(0);
    expect(parseCountLine(run.stderr)).toEqual(tree.expected);
    expect((JSON.parse(run.stdout) as { summary: unknown }).summary).toEqual(tree.expected);
  });
});

describe('parseCountLine', () => {
  it("reads back every count of audit's own line", () => {
    const full = { objects: 12, created: 7, denied: 3, warned: 2, mutated: 5, skipped: 4, errors: 1 };
    expect(parseCountLine(`admission-chain: ${countLine(full)}\n`)).toEqual(full);
    const bare = { ...emptySummary(), objects: 9, mutated: 2 };
    expect(parseCountLine(`admission-chain: ${countLine(bare)}\n`)).toEqual(bare);
    const notAudited = { ...emptySummary(), objects: 1, errors: 2 };
    expect(parseCountLine(`a.yaml: not valid JSON or YAML\nadmission-chain: ${countLine(notAudited)}\n`)).toEqual(notAudited);
  });

  it('finds nothing where no audit ended', () => {
    expect(parseCountLine('admission-chain: cannot read tree: ENOENT\n')).toBeUndefined();
  });
});
