// The module boundaries, read from the sources: the commands reach the adapters only through the
// composition root (src/wiring), and nothing that ships imports the test helpers.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A relative import of one source file, both as paths from the repository root ("src/cli/review.ts"). */
interface Import {
  file: string;
  specifier: string;
  target: string;
}

// `import ... from '...'`, `import type ... from`, `export ... from` and `import '...'`, each
// starting its line (so none in a comment), across lines; and `import('...')` with a literal.
const staticImport = /^[ \t]*(?:import|export)\b[\w\s{},*$]*?\bfrom\s*['"]([^'"\n]+)['"]/gm;
const sideEffectImport = /^[ \t]*import\s*['"]([^'"\n]+)['"]/gm;
const dynamicImport = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

const toPosix = (path: string) => path.split(sep).join('/');

function specifiers(text: string): string[] {
  return [staticImport, sideEffectImport, dynamicImport].flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
}

function sourceImports(): Import[] {
  const files = readdirSync(resolve(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => toPosix(`src/${path}`))
    .sort();
  return files.flatMap((file) =>
    specifiers(readFileSync(resolve(root, file), 'utf8'))
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => ({ file, specifier, target: toPosix(relative(root, resolve(root, dirname(file), specifier))) })),
  );
}

const imports = sourceImports();
const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
const named = (list: readonly Import[]) => list.map((i) => `${i.file} imports '${i.specifier}' (${i.target})`);

describe('import boundaries in src', () => {
  it('reads the imports (the commands import the composition root)', () => {
    expect(imports.length).toBeGreaterThan(100);
    expect(imports).toContainEqual({ file: 'src/cli/review.ts', specifier: '../wiring/index.ts', target: 'src/wiring/index.ts' });
  });

  it('src/cli reaches the adapters only through src/wiring', () => {
    const offenders = imports.filter((i) => under(i.file, 'src/cli') && under(i.target, 'src/adapters'));
    expect(named(offenders)).toEqual([]);
  });

  it('nothing in src but its tests and test data imports from test/', () => {
    const shipped = (file: string) => !file.endsWith('.test.ts') && !file.split('/').includes('testdata');
    const offenders = imports.filter((i) => shipped(i.file) && under(i.target, 'test'));
    expect(named(offenders)).toEqual([]);
  });
});

describe('the import reader', () => {
  it('finds static, type-only, re-exported, multi-line, side-effect and literal dynamic imports, not those in comments', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.ts';",
      "import * as e from './e.ts';",
      "export { f } from './f.ts';",
      "export * from './g.ts';",
      "import './h.ts';",
      "const i = await import('./i.ts');",
      "// import { j } from './j.ts';",
      " * import { k } from './k.ts';",
      "import { readFile } from 'node:fs/promises';",
    ].join('\n');
    expect(specifiers(text).sort()).toEqual(
      ['./a.ts', '../b.ts', './c.ts', './e.ts', './f.ts', './g.ts', './h.ts', './i.ts', 'node:fs/promises'].sort(),
    );
  });
});
