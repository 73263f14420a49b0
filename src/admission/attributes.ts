// What a plugin sees of one admission request (upstream admission.Attributes).
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../api/types.ts';
import type { Deadline } from './deadline.ts';
import type { Operation } from './operation.ts';

export interface Attributes {
  readonly uid: string;
  readonly operation: Operation;
  readonly kind: GroupVersionKind;
  /**
   * The kind the client asked for, when kube-apiserver converted the request to `kind` to match a
   * rule (matchPolicy Equivalent: an events.k8s.io Event sent as a core one). An in-tree plugin's
   * GetKind() is this one. Undefined when it is `kind`.
   */
  readonly requestKind?: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** "" when the request is for the main resource. */
  readonly subresource: string;
  /** "" for cluster-scoped resources. */
  readonly namespace: string;
  /** "" when the client relies on generateName. */
  readonly name: string;
  /**
   * The object being admitted. Mutating plugins change it in place; each later plugin sees those
   * changes. Undefined for DELETE and CONNECT without a body.
   */
  object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
  readonly options: unknown;
}

/** Per-request, per-plugin services the chain hands to a plugin call. */
export interface RequestContext {
  /** The request's deadline, the same object for every plugin: external calls honour its signal, synchronous work its expiresAt. */
  readonly deadline: Deadline;
  /** Records an audit annotation; the chain prefixes the key with the plugin's name. */
  annotate(key: string, value: string): void;
  /** Adds an AdmissionResponse warning (shown by kubectl as "Warning: ..."). */
  warn(message: string): void;
}
