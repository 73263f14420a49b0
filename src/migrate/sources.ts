// Where a self-managed kube-apiserver keeps its admission flags, read as kube-apiserver would read
// them: a static Pod manifest (kubeadm's /etc/kubernetes/manifests/kube-apiserver.yaml: the
// container's command and args, its files through the Pod's hostPath volumes), a kubeadm
// ClusterConfiguration (apiServer.extraArgs, a map in v1beta3 and a list of name/value in v1beta4,
// with apiServer.extraVolumes), or plain command-line flags.
import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../util/plain-object.ts';

export class MigrateSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrateSourceError';
  }
}

/** A flag as kube-apiserver's command line holds it; repeated flags keep every value, in order. */
export type Flags = ReadonlyMap<string, readonly string[]>;

export interface ApiServerSource {
  /** What was read, for messages: "static Pod manifest x.yaml". */
  readonly description: string;
  readonly flags: Flags;
  /** Where a path kube-apiserver opens is on the host: through the Pod's or kubeadm's volumes. */
  hostPath(path: string): string;
}

const identity = (path: string) => path;

/** Reads a file's text as one of the three forms; `name` is the file's name for messages. */
export function readApiServerSource(text: string, name: string): ApiServerSource {
  const document = firstObject(text, name);
  if (document === undefined) return { description: `flags in ${name}`, flags: parseFlagText(text, name), hostPath: identity };
  if (document.kind === 'Pod') return fromStaticPod(document, name);
  if (document.kind === 'ClusterConfiguration') return fromClusterConfiguration(document, name);
  throw new MigrateSourceError(
    `${name}: expected a kube-apiserver static Pod manifest, a kubeadm ClusterConfiguration or kube-apiserver's flags, got ${describeKind(document)}`,
  );
}

/** Flags given on our own command line (`--flags "..."`). */
export function flagsSource(text: string): ApiServerSource {
  return { description: 'the flags given', flags: parseFlagText(text, '--flags'), hostPath: identity };
}

/** The first YAML mapping with a kind, or undefined when the text is not a YAML mapping at all (plain flags). */
function firstObject(text: string, name: string): Record<string, unknown> | undefined {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [documents];
  const objects: Record<string, unknown>[] = [];
  for (const document of list) {
    if (document.errors.length > 0) {
      // Not YAML: flags are the only other form.
      return undefined;
    }
    const value = document.toJS() as unknown;
    if (isPlainObject(value)) objects.push(value);
  }
  if (objects.length === 0) return undefined;
  // kubeadm's config file often holds an InitConfiguration beside the ClusterConfiguration.
  return objects.find((o) => o.kind === 'ClusterConfiguration') ?? objects.find((o) => o.kind === 'Pod') ?? objectWithKind(objects, name);
}

function objectWithKind(objects: Record<string, unknown>[], name: string): Record<string, unknown> {
  const first = objects[0]!;
  if (typeof first.kind !== 'string') throw new MigrateSourceError(`${name}: a YAML document without a kind`);
  return first;
}

function fromStaticPod(pod: Record<string, unknown>, name: string): ApiServerSource {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
  const container =
    containers.find((c) => c.name === 'kube-apiserver') ?? containers.find((c) => commandOf(c)[0]?.endsWith('kube-apiserver'));
  if (container === undefined) throw new MigrateSourceError(`${name}: the Pod has no kube-apiserver container`);
  const command = commandOf(container);
  const args = stringList(container.args, `${name}: args`);
  // The flags are what follows the binary, wherever the manifest splits command from args.
  const words = command[0]?.endsWith('kube-apiserver') ? [...command.slice(1), ...args] : [...command, ...args];
  const volumes = new Map<string, string>();
  for (const volume of Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []) {
    if (typeof volume.name === 'string' && isPlainObject(volume.hostPath) && typeof volume.hostPath.path === 'string')
      volumes.set(volume.name, volume.hostPath.path);
  }
  const mounts: Mount[] = [];
  for (const mount of Array.isArray(container.volumeMounts) ? container.volumeMounts.filter(isPlainObject) : []) {
    const host = typeof mount.name === 'string' ? volumes.get(mount.name) : undefined;
    if (host !== undefined && typeof mount.mountPath === 'string') mounts.push({ inside: mount.mountPath, host });
  }
  return { description: `static Pod manifest ${name}`, flags: parseFlagWords(words, name), hostPath: throughMounts(mounts) };
}

function fromClusterConfiguration(configuration: Record<string, unknown>, name: string): ApiServerSource {
  const apiVersion = configuration.apiVersion;
  if (apiVersion !== 'kubeadm.k8s.io/v1beta3' && apiVersion !== 'kubeadm.k8s.io/v1beta4')
    throw new MigrateSourceError(
      `${name}: ClusterConfiguration ${JSON.stringify(apiVersion)}: expected kubeadm.k8s.io/v1beta3 or kubeadm.k8s.io/v1beta4`,
    );
  const apiServer = isPlainObject(configuration.apiServer) ? configuration.apiServer : {};
  const flags = new Map<string, string[]>();
  const add = (flag: string, value: unknown, at: string) => {
    if (typeof value !== 'string') throw new MigrateSourceError(`${name}: ${at}: expected a string`);
    flags.set(flag, [...(flags.get(flag) ?? []), value]);
  };
  const extraArgs = apiServer.extraArgs;
  if (apiVersion === 'kubeadm.k8s.io/v1beta3') {
    if (extraArgs !== undefined && !isPlainObject(extraArgs))
      throw new MigrateSourceError(`${name}: apiServer.extraArgs: expected a map of flag to value (v1beta3)`);
    for (const [flag, value] of Object.entries(extraArgs ?? {})) add(flag, value, `apiServer.extraArgs.${flag}`);
  } else {
    if (extraArgs !== undefined && !Array.isArray(extraArgs))
      throw new MigrateSourceError(`${name}: apiServer.extraArgs: expected a list of {name, value} (v1beta4)`);
    for (const [index, arg] of (extraArgs ?? []).entries()) {
      if (!isPlainObject(arg) || typeof arg.name !== 'string')
        throw new MigrateSourceError(`${name}: apiServer.extraArgs[${index}]: expected {name, value}`);
      add(arg.name, arg.value ?? '', `apiServer.extraArgs[${index}].value`);
    }
  }
  const mounts: Mount[] = [];
  for (const volume of Array.isArray(apiServer.extraVolumes) ? apiServer.extraVolumes.filter(isPlainObject) : []) {
    if (typeof volume.hostPath === 'string' && typeof volume.mountPath === 'string')
      mounts.push({ inside: volume.mountPath, host: volume.hostPath });
  }
  return { description: `kubeadm ClusterConfiguration ${name}`, flags, hostPath: throughMounts(mounts) };
}

interface Mount {
  readonly inside: string;
  readonly host: string;
}

/** The host path of a container path: through the longest mount that holds it (a file mount included). */
function throughMounts(mounts: readonly Mount[]): (path: string) => string {
  return (path) => {
    const normalized = posix.normalize(path);
    let best: Mount | undefined;
    for (const mount of mounts) {
      const inside = posix.normalize(mount.inside).replace(/\/$/, '');
      if ((normalized === inside || normalized.startsWith(`${inside}/`)) && (best === undefined || inside.length > best.inside.length))
        best = { inside, host: mount.host };
    }
    return best === undefined ? normalized : posix.join(best.host, normalized.slice(best.inside.length));
  };
}

function commandOf(container: Record<string, unknown>): string[] {
  return stringList(container.command, 'command');
}

function stringList(value: unknown, at: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new MigrateSourceError(`${at}: expected a list of strings`);
  return value as string[];
}

/** Flags in text: a shell line, a systemd ExecStart with backslash continuations, one flag a line. */
function parseFlagText(text: string, name: string): Flags {
  const words = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^(['"])(.*)\1$/, '$2'))
    .filter((word) => word !== '');
  const start = words.findIndex((word) => word.endsWith('kube-apiserver') || word.startsWith('-'));
  return parseFlagWords(start < 0 ? [] : words.slice(words[start]!.startsWith('-') ? start : start + 1), name);
}

/** pflag's reading: --name=value, or --name value when the next word is not a flag. */
function parseFlagWords(words: readonly string[], name: string): Flags {
  const flags = new Map<string, string[]>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-')) throw new MigrateSourceError(`${name}: ${JSON.stringify(word)} is not a flag (flags start with --)`);
    const body = word.replace(/^--?/, '');
    const equals = body.indexOf('=');
    let flag: string;
    let value: string;
    if (equals >= 0) {
      flag = body.slice(0, equals);
      value = body.slice(equals + 1);
    } else {
      flag = body;
      const next = words[i + 1];
      value = next !== undefined && !next.startsWith('-') ? next : 'true';
      if (value === next) i++;
    }
    flags.set(flag, [...(flags.get(flag) ?? []), value]);
  }
  return flags;
}

function describeKind(document: Record<string, unknown>): string {
  return `${typeof document.apiVersion === 'string' ? `${document.apiVersion} ` : ''}${String(document.kind)}`;
}
