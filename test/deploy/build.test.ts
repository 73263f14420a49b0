// The production build (what the container image runs): tsc emits plain JavaScript for src/, and
// the compiled entry point works without the TypeScript stripper.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { podReview } from '../support/reviews.ts';
import { repoRoot } from './tools.ts';

const run = promisify(execFile);
// Inside node_modules so the compiled files resolve the project's dependencies, as /app/dist does.
const outDir = join(repoRoot, 'node_modules/.cache/admission-chain-build/dist');

describe('production build', () => {
  beforeAll(async () => {
    await rm(outDir, { recursive: true, force: true });
    await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', outDir], { cwd: repoRoot });
  }, 120_000);

  it('emits JavaScript only, with relative imports rewritten to .js and no tests', async () => {
    const { readFile, readdir } = await import('node:fs/promises');
    const files = (await readdir(outDir, { recursive: true })).map(String);
    expect(files).toContain(join('cli', 'run.js'));
    expect(files.some((f) => f.endsWith('.ts'))).toBe(false);
    expect(files.some((f) => f.endsWith('.test.js'))).toBe(false);
    const backends = await readFile(join(outDir, 'backends.js'), 'utf8');
    expect(backends).toContain('import("./cluster-backend.js")');
    expect(backends).not.toMatch(/from "\.[^"]*\.ts"/);
  });

  it('runs: the compiled review command answers an AdmissionReview', async () => {
    const child = execFile(process.execPath, [join(outDir, 'cli/run.js'), 'review', '--cluster-state', join(repoRoot, 'examples/cluster-state.yaml')], { cwd: repoRoot });
    child.stdin!.end(JSON.stringify(podReview({ pullPolicy: 'Never' })));
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(stdout).response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
  });
});
