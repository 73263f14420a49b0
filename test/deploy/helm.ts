// Runs the real helm binary over charts/admission-chain and parses what it renders, so chart tests
// assert on objects, not on text.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { helmPath, repoRoot } from './tools.ts';

export const chartDir = join(repoRoot, 'charts', 'admission-chain');

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface ChartInput {
  /** Values merged over values.yaml (passed as a values file, so types survive). */
  values?: Record<string, unknown>;
  /** Further values files, e.g. the ones under examples/values. */
  valuesFiles?: string[];
  /** --api-versions entries: APIs the pretend cluster serves beyond the built-in ones. */
  apiVersions?: string[];
  kubeVersion?: string;
  namespace?: string;
  releaseName?: string;
  /** Leave image.repository unset (it is required); by default tests run testImageRepository. */
  withoutImage?: boolean;
}

/** The image the chart tests install (the chart requires one; none is published). */
export const testImageRepository = 'registry.example.com/admission-chain';

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const defaultNamespace = 'admission-chain';
export const defaultRelease = 'ac';

/**
 * What helm answered, by command and input (values files by their contents): the chart does not
 * change during a run, and many tests read the same rendering (the defaults alone a dozen times).
 * A result is never shared as objects: each caller parses its own copy.
 */
const answered = new Map<string, HelmResult>();

export function runHelm(command: 'template' | 'lint', input: ChartInput = {}): HelmResult {
  const key = JSON.stringify([command, input, (input.valuesFiles ?? []).map((file) => readFileSync(file, 'utf8'))]);
  const known = answered.get(key);
  if (known !== undefined) return known;
  const result = runHelmUncached(command, input);
  answered.set(key, Object.freeze(result));
  return result;
}

function runHelmUncached(command: 'template' | 'lint', input: ChartInput): HelmResult {
  const scratch = mkdtempSync(join(tmpdir(), 'admission-chain-helm-'));
  try {
    const args: string[] = [command];
    if (command === 'template') args.push(input.releaseName ?? defaultRelease);
    args.push(chartDir, '--namespace', input.namespace ?? defaultNamespace);
    if (command === 'lint') args.push('--strict');
    if (!input.withoutImage) {
      const file = join(scratch, 'image.json');
      writeFileSync(file, JSON.stringify({ image: { repository: testImageRepository } }));
      args.push('--values', file);
    }
    for (const file of input.valuesFiles ?? []) args.push('--values', file);
    if (input.values) {
      const file = join(scratch, 'values.json');
      writeFileSync(file, JSON.stringify(input.values));
      args.push('--values', file);
    }
    if (command === 'template') {
      for (const api of input.apiVersions ?? []) args.push('--api-versions', api);
      if (input.kubeVersion) args.push('--kube-version', input.kubeVersion);
    }
    // HELM_* homes in the scratch directory: no reads of, or writes to, the user's helm config.
    const env = {
      ...process.env,
      HELM_CACHE_HOME: join(scratch, 'cache'),
      HELM_CONFIG_HOME: join(scratch, 'config'),
      HELM_DATA_HOME: join(scratch, 'data'),
    };
    const result = spawnSync(helmPath(), args, { encoding: 'utf8', env });
    if (result.error) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** helm with the given arguments as written (a documented command), isolated from the user's helm config. */
export function runHelmArgs(args: string[]): HelmResult {
  const scratch = mkdtempSync(join(tmpdir(), 'admission-chain-helm-'));
  try {
    const env = {
      ...process.env,
      HELM_CACHE_HOME: join(scratch, 'cache'),
      HELM_CONFIG_HOME: join(scratch, 'config'),
      HELM_DATA_HOME: join(scratch, 'data'),
    };
    const result = spawnSync(helmPath(), args, { encoding: 'utf8', env, cwd: repoRoot });
    if (result.error) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The NOTES `helm install --dry-run=client` prints for the default release with these extra args; helm must print no error. */
export function installNotes(extra: string[]): { stderr: string; notes: string } {
  const result = runHelmArgs([
    'install',
    defaultRelease,
    chartDir,
    '-n',
    defaultNamespace,
    '--dry-run=client',
    '--set',
    `image.repository=${testImageRepository}`,
    ...extra,
  ]);
  return { stderr: result.stderr, notes: result.stdout.slice(result.stdout.indexOf('NOTES:')) };
}

/** `helm template`, which must succeed, parsed into objects (empty documents dropped). */
export function renderChart(input: ChartInput = {}): KubeObject[] {
  const result = runHelm('template', input);
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}):\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${doc.errors[0]?.message}`);
      return doc.toJS() as KubeObject | null;
    })
    .filter((obj): obj is KubeObject => obj !== null);
}

/** Whether Helm runs the object as a hook (helm.sh/hook) rather than installing it with the release. */
export function isHook(object: KubeObject): boolean {
  return object.metadata.annotations?.['helm.sh/hook'] !== undefined;
}

/** The one rendered release object (not a hook) of a kind (and name, if given); throws when absent or ambiguous. */
export function only<T = KubeObject>(objects: KubeObject[], kind: string, name?: string): T {
  const matches = objects.filter((o) => !isHook(o) && o.kind === kind && (name === undefined || o.metadata.name === name));
  if (matches.length !== 1) throw new Error(`expected exactly one ${kind}${name ? ` ${name}` : ''}, found ${matches.length}`);
  return matches[0] as T;
}

export function kindsOf(objects: KubeObject[]): string[] {
  return objects.map((o) => o.kind).sort();
}
