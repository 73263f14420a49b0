// Test support: upstream's pod builders, pod admission attributes, and a Lookups that records
// how often the cache and the live reads were asked, over two real local backends.
import jsonPatch from 'fast-json-patch';
import type { Container, Pod, Toleration } from '../../api/core.ts';
import { attributesFrom, type AdmissionRequest } from '../../admission/review.ts';
import { cloneJson } from '../../util/clone-json.ts';
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import { createLocalLookups } from '../../adapters/local/lookups.ts';
import { parseClusterState } from '../../adapters/local/cluster-state.ts';
import type { Lookups, ResourceLookup, RuntimeClass } from '../../ports/lookups.ts';

export const guaranteedResources = { limits: { cpu: '1', memory: '10' }, requests: { cpu: '1', memory: '10' } };

/** Upstream newOverheadValidPod. */
export function newOverheadValidPod(name: string, numContainers: number, resources: object, withOverhead: boolean, withEmptyOverhead: boolean): Pod {
  const containers: Container[] = Array.from({ length: numContainers }, (_, i) => ({
    name: `foo-${i}`,
    image: `foo:V${i}`,
    ...(Object.keys(resources).length > 0 ? { resources: structuredClone(resources) } : {}),
  }));
  const pod: Pod = { metadata: { name, namespace: 'test' }, spec: { containers } };
  if (withOverhead) pod.spec!.overhead = { cpu: '100m', memory: '1' };
  else if (withEmptyOverhead) pod.spec!.overhead = {};
  return pod;
}

/** Upstream newSchedulingValidPod; undefined stands for Go's nil. */
export function newSchedulingValidPod(name: string, nodeSelector: Record<string, string> | undefined, tolerations: Toleration[] | undefined): Pod {
  const spec: Pod['spec'] = {};
  if (nodeSelector !== undefined) spec.nodeSelector = nodeSelector;
  if (tolerations !== undefined) spec.tolerations = tolerations;
  return { metadata: { name, namespace: 'test' }, spec };
}

export function runtimeClass(name: string, extra: Partial<RuntimeClass> = {}): RuntimeClass {
  return { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'bar', ...extra };
}

export function podAttributes(pod: unknown, overrides: Partial<Attributes> = {}): Attributes {
  const meta = (pod as Pod | undefined)?.metadata;
  return {
    uid: 'uid',
    operation: Operation.Create,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: meta?.namespace ?? '',
    name: meta?.name ?? '',
    object: pod as Attributes['object'],
    oldObject: undefined,
    userInfo: {},
    dryRun: false,
    options: {},
    ...overrides,
  };
}

export function testContext(signal = new AbortController().signal): RequestContext {
  return { signal, annotate: () => {}, warn: () => {} };
}

/** A cluster-state YAML stream holding these RuntimeClasses. */
export function clusterStateYaml(classes: readonly RuntimeClass[]): string {
  return classes.map((c) => JSON.stringify(c)).join('\n---\n');
}

export interface RecordingLookups extends Lookups {
  readonly calls: { cached: string[]; live: string[] };
}

/**
 * The informer cache and the API server as two separate local backends, so a class can be in one
 * and not the other (upstream's "found by lister" / "found by client" rows); every call is recorded.
 */
export function recordingLookups(cacheClasses: readonly RuntimeClass[], liveClasses: readonly RuntimeClass[], liveError?: unknown): RecordingLookups {
  const cache = createLocalLookups(parseClusterState(clusterStateYaml(cacheClasses)));
  const server = createLocalLookups(parseClusterState(clusterStateYaml(liveClasses)));
  const calls = { cached: [] as string[], live: [] as string[] };
  const runtimeClasses: ResourceLookup<RuntimeClass> = {
    cached: (namespace, name) => {
      calls.cached.push(`${namespace}/${name}`);
      return cache.runtimeClasses.cached(namespace, name);
    },
    live: async (namespace, name, signal) => {
      calls.live.push(`${namespace}/${name}`);
      if (liveError !== undefined) throw liveError;
      return server.runtimeClasses.live(namespace, name, signal);
    },
  };
  return { ...cache, runtimeClasses, calls };
}

/** What the API server ends up with: the original plus the patch the webhook would send. */
export function patchedThroughWebhook(original: unknown, mutated: unknown): { patch: jsonPatch.Operation[]; result: unknown } {
  const patch = jsonPatch.compare(original as object, mutated as object);
  const result = jsonPatch.applyPatch(structuredClone(original), structuredClone(patch), true, false).newDocument;
  return { patch, result };
}

export interface AdmissionRequestJSON {
  uid: string;
  kind: Attributes['kind'];
  resource: Attributes['resource'];
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: Attributes['operation'];
  userInfo?: Attributes['userInfo'];
  object?: Attributes['object'];
  oldObject?: Attributes['oldObject'] | null;
  dryRun?: boolean;
  options?: unknown;
}

/** Attributes as the webhook builds them from an AdmissionReview request (the webhook's own codec). */
export function attributesFromRequest(request: AdmissionRequestJSON): Attributes {
  return attributesFrom(request as unknown as AdmissionRequest, request.object === undefined ? undefined : cloneJson(request.object));
}
