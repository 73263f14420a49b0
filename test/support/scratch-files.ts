// A scratch folder for one test file, removed after its tests: files written there get a numbered
// name, so two tests writing "state.yaml" never read each other's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export interface ScratchFiles {
  readonly dir: string;
  /** Writes the content to a new file named after `name`, and returns its path. */
  write(name: string, content: string): string;
}

export function scratchFiles(prefix: string): ScratchFiles {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let count = 0;
  return {
    dir,
    write: (name, content) => {
      const path = join(dir, `${count++}-${name}`);
      writeFileSync(path, content);
      return path;
    },
  };
}
