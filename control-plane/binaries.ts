// The control plane's binaries — kube-apiserver, kubectl and etcd — built from their Go modules at the
// releases the wrapper modules in control-plane/modules pin (their go.mod is the one place a version
// is set), into a cache outside the checkout keyed by what went into the build, so a fresh clone
// reuses what an earlier one built on the same machine.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

const modulesDir = join(import.meta.dirname, 'modules');

/** One Go module's release and the commands built from it. */
export interface Build {
  /** The wrapper module's folder name under `modulesDir`. */
  name: string;
  /** Where the wrapper module's folder is (default control-plane/modules). */
  modulesDir?: string;
  /** The cache's subfolder the build lands in (default control-plane). */
  cacheFolder?: string;
  /** Build tags (default upstream Kubernetes' release tags). */
  tags?: string[];
  /** The module the wrapper requires, and the release it pins. */
  module: string;
  version: string;
  /** Package path → binary name. */
  commands: Record<string, string>;
  ldflags: string[];
}

export interface Binaries {
  kubeApiserver: string;
  kubectl: string;
  etcd: string;
  kubernetesVersion: string;
  etcdVersion: string;
}

/** The builds, read from the wrapper modules' go.mod files. */
export function builds(): Build[] {
  const kubernetes = requiredVersion('kubernetes', 'k8s.io/kubernetes');
  const etcd = requiredVersion('etcd', 'go.etcd.io/etcd/server/v3');
  const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(kubernetes) ?? [];
  // What upstream's build stamps (hack/lib/version.sh), so /version and `kubectl version` tell the truth.
  const stamp = (key: string, value: string) =>
    ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].map((pkg) => `-X ${pkg}.${key}=${value}`);
  return [
    {
      name: 'kubernetes',
      module: 'k8s.io/kubernetes',
      version: kubernetes,
      commands: { 'k8s.io/kubernetes/cmd/kube-apiserver': 'kube-apiserver', 'k8s.io/kubernetes/cmd/kubectl': 'kubectl' },
      ldflags: [
        ...stamp('gitVersion', kubernetes),
        ...stamp('gitMajor', major ?? ''),
        ...stamp('gitMinor', minor ?? ''),
        ...stamp('gitTreeState', 'clean'),
      ],
    },
    { name: 'etcd', module: 'go.etcd.io/etcd/server/v3', version: etcd, commands: { 'go.etcd.io/etcd/server/v3': 'etcd' }, ldflags: [] },
  ];
}

/** The release of `module` that a wrapper module's go.mod requires. */
export function requiredVersion(wrapper: string, module: string, dir = modulesDir): string {
  const goMod = readFileSync(join(dir, wrapper, 'go.mod'), 'utf8');
  const escaped = module.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`${join(dir, wrapper, 'go.mod')} does not require ${module}`);
  return match[1];
}

/** Where the binaries live: $ADMISSION_CHAIN_CACHE, else the user's cache directory. */
export function cacheRoot(): string {
  const explicit = process.env.ADMISSION_CHAIN_CACHE;
  if (explicit !== undefined && explicit !== '') return explicit;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'admission-chain');
}

/** A build's folder: its release plus a digest of its go.mod, go.sum and flags. */
export function buildDir(build: Build): string {
  const digest = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) digest.update(readFileSync(join(build.modulesDir ?? modulesDir, build.name, file)));
  digest.update(JSON.stringify([goBuildFlags(build), process.platform, process.arch]));
  return join(cacheRoot(), build.cacheFolder ?? 'control-plane', `${build.name}-${build.version}-${digest.digest('hex').slice(0, 12)}`);
}

// As upstream builds its release binaries (hack/lib/golang.sh): static, trimmed, without symbols.
function goBuildFlags(build: Build): string[] {
  const tags = build.tags ?? ['selinux', 'notest', 'grpcnotrace'];
  return [
    '-trimpath',
    '-buildvcs=false',
    ...(tags.length > 0 ? [`-tags=${tags.join(',')}`] : []),
    `-ldflags=-s -w ${build.ldflags.join(' ')}`,
  ];
}

/** The built binaries, or why they are not there. */
export function findBinaries(): Binaries | { missing: string } {
  const [kubernetes, etcd] = builds() as [Build, Build];
  const paths = {
    kubeApiserver: join(buildDir(kubernetes), 'kube-apiserver'),
    kubectl: join(buildDir(kubernetes), 'kubectl'),
    etcd: join(buildDir(etcd), 'etcd'),
  };
  const absent = Object.values(paths).filter((path) => !existsSync(path));
  if (absent.length > 0) return { missing: `not built yet: ${absent.join(', ')} (npm run control-plane:build builds them)` };
  return { ...paths, kubernetesVersion: kubernetes.version, etcdVersion: etcd.version };
}

/** Whether a Go toolchain answers on PATH, and its version line. */
export async function goVersion(): Promise<string | undefined> {
  try {
    const { code, output } = await run('go', ['version'], process.cwd(), {});
    return code === 0 ? output.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds every binary that is missing; reports each build as it starts (a cold one takes minutes).
 * Builds one module at a time: a machine of two cores has nothing to gain from two at once.
 */
export async function buildMissing(report: (line: string) => void): Promise<Binaries> {
  await buildEach(builds(), report);
  const found = findBinaries();
  if ('missing' in found) throw new Error(found.missing);
  return found;
}

/** Builds each of these builds whose binaries are missing from its cache folder, one at a time. */
export async function buildEach(list: readonly Build[], report: (line: string) => void): Promise<void> {
  for (const build of list) {
    const dir = buildDir(build);
    if (Object.values(build.commands).every((binary) => existsSync(join(dir, binary)))) continue;
    report(
      `building ${Object.values(build.commands).join(', ')} ${build.version} from the ${build.module} Go module into ${dir} (a cold build takes minutes)`,
    );
    const started = Date.now();
    // Built aside and renamed, so an interrupted build never leaves a binary that looks complete.
    const partial = `${dir}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    const { code, output } = await run(
      'go',
      ['build', ...goBuildFlags(build), '-o', `${partial}/`, ...Object.keys(build.commands)],
      join(build.modulesDir ?? modulesDir, build.name),
      { CGO_ENABLED: '0' },
    );
    if (code !== 0) {
      await rm(partial, { recursive: true, force: true });
      throw new Error(`go build of ${build.module} ${build.version} failed (exit ${code}):\n${output.slice(-4000)}`);
    }
    for (const [pkg, binary] of Object.entries(build.commands)) {
      if (goBinaryName(pkg) !== binary) await rename(join(partial, goBinaryName(pkg)), join(partial, binary));
    }
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
    report(`built ${build.module} ${build.version} in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

// What `go build -o dir/` names a command: its last path element, or the one before a major version.
function goBinaryName(pkg: string): string {
  const parts = pkg.split('/');
  const last = parts.at(-1) ?? pkg;
  return /^v\d+$/.test(last) && parts.length > 1 ? (parts.at(-2) ?? last) : last;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      // The tail is what explains a failure; a build's output is otherwise short.
      output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}
