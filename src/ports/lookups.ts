// Reads of cluster objects plugins need (service accounts, secrets, runtime classes, namespaces,
// nodes): a cache first, then a live read only where upstream does one.
import type { KubeObject } from '../api/types.ts';

export interface ResourceLookup<T extends KubeObject> {
  /** From the informer cache (or local state): undefined when the cache has no such object. */
  cached(namespace: string, name: string): T | undefined;
  /** A live read from the API server: undefined on NotFound; throws on any other error. */
  live(namespace: string, name: string, signal?: AbortSignal): Promise<T | undefined>;
  /**
   * Whether the cache has completed its first LIST, waiting up to waitMs for it (upstream
   * admission.Handler.WaitForReady); false also when the signal aborts first. Absent where the
   * cache is complete from the start (the local cluster state).
   */
  synced?(waitMs: number, signal: AbortSignal): Promise<boolean>;
}

export interface ServiceAccount extends KubeObject {
  automountServiceAccountToken?: boolean;
  secrets?: Array<{ name?: string; namespace?: string; kind?: string }>;
  imagePullSecrets?: Array<{ name?: string }>;
}

/** Secrets are looked up by name and type only; data is never read or held. */
export interface SecretReference extends KubeObject {
  type?: string;
}

export interface RuntimeClass extends KubeObject {
  handler?: string;
  overhead?: { podFixed?: Record<string, string> };
  scheduling?: {
    nodeSelector?: Record<string, string>;
    tolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }>;
  };
}

/** A Namespace as admission reads it: its name, annotations (node selector, tolerations) and labels (exemptions). */
export type Namespace = KubeObject;

/** A Node as the plugins read it: its name and labels (the topology labels PodTopologyLabels copies). */
export type Node = KubeObject;

export interface Lookups {
  serviceAccounts: ResourceLookup<ServiceAccount>;
  secrets: ResourceLookup<SecretReference>;
  /** RuntimeClasses are cluster-scoped: the namespace argument is "". */
  runtimeClasses: ResourceLookup<RuntimeClass>;
  /** Namespaces are cluster-scoped: the namespace argument is "". */
  namespaces: ResourceLookup<Namespace>;
  /** Nodes are cluster-scoped: the namespace argument is "". */
  nodes: ResourceLookup<Node>;
}
