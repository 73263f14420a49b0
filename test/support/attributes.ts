// Admission attributes and request contexts for tests. attributesRecord is upstream's
// admission.NewAttributesRecord: the object, and every other field a default a test can override;
// podAttributes is a whole pod CREATE by alice, for tests of the chain and the server.
import type { Attributes, RequestContext } from '../../src/admission/attributes.ts';
import type { Deadline } from '../../src/admission/deadline.ts';
import { isOperation } from '../../src/admission/operation.ts';
import { type AdmissionRequest, attributesFrom } from '../../src/admission/review.ts';
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../../src/api/types.ts';
import { cloneJson } from '../../src/util/clone-json.ts';

/**
 * A CREATE of this object as a pod, nothing else set: name and namespace "", no user, version "v1".
 * An override given as undefined leaves the default.
 */
export function attributesRecord(object: unknown, overrides: Partial<Attributes> = {}): Attributes {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return {
    uid: 'uid',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: '',
    name: '',
    object: object as KubeObject | undefined,
    oldObject: undefined,
    userInfo: {},
    dryRun: false,
    options: undefined,
    ...given,
  };
}

/** attributesRecord with the name and namespace the object's own metadata gives (a create's, say). */
export function attributesOf(object: unknown, overrides: Partial<Attributes> = {}): Attributes {
  const meta = (object as KubeObject | undefined)?.metadata;
  return attributesRecord(object, { namespace: meta?.namespace ?? '', name: meta?.name ?? '', ...overrides });
}

/** A pod CREATE by alice, with a pod in it. */
export function podAttributes(overrides: Partial<Attributes> = {}): Attributes {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
  return attributesRecord(pod, {
    uid: 'test-uid',
    namespace: 'default',
    name: 'web',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    ...overrides,
  });
}

/** An AdmissionReview request as JSON carries it. */
export interface AdmissionRequestJSON {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo?: UserInfo;
  object?: KubeObject;
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  options?: unknown;
}

/** Attributes as the webhook builds them from an AdmissionReview request (the webhook's own codec). */
export function attributesFromRequest(request: AdmissionRequestJSON): Attributes {
  if (!isOperation(request.operation)) throw new Error(`bad operation ${request.operation}`);
  return attributesFrom(request as unknown as AdmissionRequest, request.object === undefined ? undefined : cloneJson(request.object));
}

/** A request context that keeps the annotations and warnings a plugin gives. */
export interface RecordingContext extends RequestContext {
  readonly annotations: Record<string, string>;
  readonly warnings: string[];
}

/** Longer than vitest's test timeout (vitest.config.ts): a deadline this far ahead never passes within a test. */
export const beyondTheTestMs = 60_000;

/**
 * A deadline of this signal and expiry. A request always has a deadline, so a test that does not
 * care gets one that passes only after the test has ended, never one that cannot pass.
 */
export function deadlineOf(signal: AbortSignal = new AbortController().signal, expiresAt = performance.now() + beyondTheTestMs): Deadline {
  return { signal, expiresAt };
}

export function requestContext(signal?: AbortSignal, expiresAt?: number): RecordingContext {
  const annotations: Record<string, string> = {};
  const warnings: string[] = [];
  return {
    deadline: deadlineOf(signal, expiresAt),
    annotations,
    warnings,
    annotate: (key, value) => {
      annotations[key] = value;
    },
    warn: (message) => {
      warnings.push(message);
    },
  };
}
