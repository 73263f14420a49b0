// The README's first command, `npm ci`, as a new user runs it: the machine's npm on the machine's
// Node (v20 on our build machines, older than what the dependencies' engines ask for), in a fresh
// clone. It must succeed and print no warning. The repository's .npmrc keeps npm to errors for that;
// the second test makes sure that hides nothing real: on the Node the project pins and runs on, with
// warnings shown, npm finds nothing to warn about, so what the machine's Node adds can only be
// engine checks against itself. Both run `npm ci --dry-run` offline on the committed package files.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './tools.ts';

const clone = mkdtempSync(join(tmpdir(), 'admission-chain-npm-ci-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));
// What a clone has of what npm reads: the package files, and the project's npm configuration.
for (const file of ['package.json', 'package-lock.json', '.npmrc'])
  if (existsSync(join(repoRoot, file))) copyFileSync(join(repoRoot, file), join(clone, file));

/** PATH without the node_modules/.bin folders npm scripts put first: the machine's own tools. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.split(sep).includes('node_modules'))
  .join(delimiter);

function onMachinePath(name: string): string {
  for (const dir of machinePath.split(delimiter)) if (dir !== '' && existsSync(join(dir, name))) return realpathSync(join(dir, name));
  throw new Error(`no ${name} on PATH outside node_modules`);
}

/** The environment of a shell, not of an npm script: the machine's PATH and no npm_config_* settings. */
function machineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: machinePath };
  for (const key of Object.keys(env)) if (/^npm_config_/i.test(key)) delete env[key];
  return env;
}

/** npm's own entry point, run here by a Node of our choosing. */
function npmCli(): string {
  const fromNpm = process.env.npm_execpath;
  if (fromNpm !== undefined && /npm-cli\.js$/.test(fromNpm)) return fromNpm;
  if (fromNpm !== undefined && /npx-cli\.js$/.test(fromNpm)) return join(dirname(fromNpm), 'npm-cli.js');
  return join(dirname(onMachinePath('npm')), 'npm-cli.js');
}

function npmCiDryRun(node: string, flags: string[] = []) {
  const result = spawnSync(
    node,
    [npmCli(), 'ci', '--dry-run', '--offline', '--no-audit', '--no-fund', '--cache', join(clone, '.npm-cache'), ...flags],
    {
      cwd: clone,
      encoding: 'utf8',
      env: machineEnv(),
      timeout: 60_000,
    },
  );
  return { status: result.status, stderr: result.stderr, nodeVersion: spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim() };
}

describe('npm ci, as the README runs it', () => {
  it("on the machine's npm and Node, succeeds and prints no warning", () => {
    const { status, stderr, nodeVersion } = npmCiDryRun(onMachinePath('node'));
    expect({ nodeVersion, status, warnings: stderr.split('\n').filter((line) => /^npm (warn|WARN)/.test(line)) }).toEqual({
      nodeVersion,
      status: 0,
      warnings: [],
    });
  });

  it('on the pinned Node, with warnings shown, has nothing to warn about', () => {
    const pinned = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies.node;
    const { status, stderr, nodeVersion } = npmCiDryRun(join(repoRoot, 'node_modules', '.bin', 'node'), ['--loglevel=warn']);
    expect({ nodeVersion, status, stderr }).toEqual({ nodeVersion: `v${pinned}`, status: 0, stderr: '' });
  });
});
