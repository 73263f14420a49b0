// The Dockerfile cannot be built on our machines, so it is linted (dockerfile-utils) and its
// security-relevant shape asserted: two stages (bundle, runtime), pinned base, no node_modules and
// no package manager at run time, non-root 65532, node as PID 1 in exec form, only package.json and
// the bundled dist/ in the runtime image.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './tools.ts';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped (enough for this one file). */
function instructions(source: string): Instruction[] {
  const logical = source
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of each stage, keyed by stage name. */
function stages(all: Instruction[]): Map<string, Instruction[]> {
  const byStage = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of all) {
    if (instruction.keyword === 'FROM') {
      const name = /\bAS\s+(\S+)$/i.exec(instruction.args)?.[1] ?? `stage${byStage.size}`;
      current = [];
      byStage.set(name, current);
    }
    current?.push(instruction);
  }
  return byStage;
}

const all = instructions(dockerfile);
const byStage = stages(all);
const runtime = byStage.get('runtime') ?? [];
const build = byStage.get('build') ?? [];
const last = (stage: Instruction[], keyword: string): Instruction | undefined => stage.filter((i) => i.keyword === keyword).at(-1);

describe('Dockerfile', () => {
  it('lints clean with dockerfile-utils (no errors, no warnings)', () => {
    const problems = validate(dockerfile);
    expect(problems.map((p) => `${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('the linter is live: a broken Dockerfile is reported', () => {
    expect(validate('FROM\nCMD ["node", "x.js"\nEXPOSE http\n').length).toBeGreaterThan(0);
  });

  it('is multi-stage: a bundling stage and a runtime stage that is the last one', () => {
    expect([...byStage.keys()]).toEqual(['build', 'runtime']);
  });

  it("bundles the sources with the project's build script (npm run build) in the build stage", () => {
    const script = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build;
    expect(build).toContainEqual({ keyword: 'RUN', args: script });
    expect(build.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual([
      'package.json package-lock.json ./',
      'tsconfig.json ./',
      'build ./build',
      'src ./src',
    ]);
  });

  it('pins the Node 24 LTS base by tag and digest, once, for both stages', () => {
    const arg = all.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='));
    expect(arg?.args).toMatch(/^NODE_IMAGE=node:24\.\d+\.\d+-[a-z]+-slim@sha256:[a-f0-9]{64}$/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${NODE_IMAGE}, as written in it
    expect(all.filter((i) => i.keyword === 'FROM').map((i) => i.args)).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime']);
  });

  it('installs from the lockfile only, once, to bundle; nothing is installed at run time', () => {
    const installs = all.filter((i) => i.keyword === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args));
    expect(installs.map((i) => i.args)).toEqual(['npm ci --ignore-scripts --no-audit --no-fund']);
    expect(build).toContainEqual(installs[0]);
  });

  it('copies only package.json and the bundled dist/ into the runtime image (no sources, no node_modules)', () => {
    const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual(['package.json ./', '--from=build /app/dist ./dist']);
    expect(all.some((i) => i.keyword === 'ADD')).toBe(false);
  });

  it('runs as uid/gid 65532 with node itself as PID 1 (exec-form CMD, no entrypoint wrapper)', () => {
    expect(last(runtime, 'USER')?.args).toBe('65532:65532');
    const userAt = runtime.findIndex((i) => i.keyword === 'USER');
    expect(runtime.slice(userAt).some((i) => i.keyword === 'RUN')).toBe(false);
    expect(last(runtime, 'ENTRYPOINT')?.args).toBe('[]');
    const cmd = last(runtime, 'CMD');
    expect(JSON.parse(cmd?.args ?? 'null')).toEqual([
      'node',
      '--max-semi-space-size=4',
      '--no-parallel-scavenge',
      'dist/cli/run.js',
      'serve',
    ]);
    expect(last(runtime, 'WORKDIR')?.args).toBe('/app');
  });

  it('runs node in production mode with one malloc arena and a fixed mmap threshold (docs/benchmark.md)', () => {
    const env = runtime.filter((i) => i.keyword === 'ENV').map((i) => i.args);
    expect(env).toEqual(['NODE_ENV=production', 'MALLOC_ARENA_MAX=1', 'MALLOC_MMAP_THRESHOLD_=32768']);
  });

  it('exposes the webhook and metrics ports the chart expects', () => {
    expect(last(runtime, 'EXPOSE')?.args).toBe('8443 8080');
  });

  it('keeps the build context to what the image needs (.dockerignore)', () => {
    const lines = dockerignore.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(lines[0]).toBe('*');
    expect(lines).toEqual(
      expect.arrayContaining(['!package.json', '!package-lock.json', '!tsconfig.json', '!build', '!src', 'src/**/*.test.ts']),
    );
  });
});
