// What the production sources may import: nothing under test/, and no test data. Test tables and
// doubles live in testdata/ folders (which the image's build context leaves out) or beside the
// tests, never in a runtime module.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './tools.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testdata' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const importSpecifier = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

describe('production sources', () => {
  const files = sourceFiles(join(repoRoot, 'src'));

  it('are found (the walk reaches the tree)', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('import nothing from test/ and no testdata/', () => {
    const offending = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(importSpecifier)]
        .map((match) => relative(repoRoot, resolve(dirname(file), match[1]!)))
        .filter((target) => target.startsWith('test/') || target.split('/').includes('testdata'))
        .map((target) => `${relative(repoRoot, file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });
});
