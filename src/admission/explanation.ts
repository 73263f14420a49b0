// What a rejection was about, as data. A plugin that knows why it said no attaches these facts to
// the StatusError it throws; src/explain turns them into warnings, kubectl commands and YAML. The
// facts never reach the message, which stays upstream's, word for word.
import type { Toleration } from '../api/core.ts';
import type { StatusError } from '../api/status-error.ts';
import type { KubeObject } from '../api/types.ts';
import type { AuthorizationAttributes, AuthorizationResult } from '../ports/authorizer.ts';

export const FactType = {
  /** An authorization question answered with anything but allow (a denial or an error). */
  Authorization: 'authorization',
  /** An ownerReference whose kind no REST mapping serves, so its owner cannot be checked. */
  UnmappedOwner: 'unmapped-owner',
  MissingServiceAccount: 'missing-service-account',
  PullPolicy: 'pull-policy',
  NodeSelectorConflict: 'node-selector-conflict',
  NodeSelectorWhitelist: 'node-selector-whitelist',
  TolerationWhitelist: 'toleration-whitelist',
  ExternalIPs: 'external-ips',
  AntiAffinityTopology: 'anti-affinity-topology',
} as const;

export interface AuthorizationFact {
  readonly type: typeof FactType.Authorization;
  /** The question exactly as asked, the requester's identity included. */
  readonly attributes: AuthorizationAttributes;
  readonly answer: AuthorizationResult;
}

export interface UnmappedOwnerFact {
  readonly type: typeof FactType.UnmappedOwner;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly error: string;
}

export interface MissingServiceAccountFact {
  readonly type: typeof FactType.MissingServiceAccount;
  readonly namespace: string;
  readonly name: string;
}

export interface PullPolicyFact {
  readonly type: typeof FactType.PullPolicy;
  /** The first fields found without Always (field path and value), at most a handful. */
  readonly fields: ReadonlyArray<{ readonly path: string; readonly value: string }>;
  /** How many fields lack Always in all. */
  readonly total: number;
}

export interface NodeSelectorConflictFact {
  readonly type: typeof FactType.NodeSelectorConflict;
  readonly namespace: string;
  readonly conflicts: ReadonlyArray<{ readonly key: string; readonly podValue: string; readonly namespaceValue: string }>;
}

export interface NodeSelectorWhitelistFact {
  readonly type: typeof FactType.NodeSelectorWhitelist;
  readonly namespace: string;
  /** Labels of the pod's selector outside the whitelist; `allowed` is the whitelist's value for the key, if any. */
  readonly labels: ReadonlyArray<{ readonly key: string; readonly value: string; readonly allowed?: string }>;
}

export interface TolerationWhitelistFact {
  readonly type: typeof FactType.TolerationWhitelist;
  readonly namespace: string;
  /** Whose whitelist: the namespace's annotation, or the plugin configuration's cluster-wide one. */
  readonly scope: 'namespace' | 'cluster';
  /** The first tolerations no whitelist entry covers, at most a handful. */
  readonly tolerations: readonly Toleration[];
  readonly total: number;
}

export interface ExternalIPsFact {
  readonly type: typeof FactType.ExternalIPs;
  /** The first IPs the Service adds, at most a handful. */
  readonly added: readonly string[];
  readonly total: number;
}

export interface AntiAffinityTopologyFact {
  readonly type: typeof FactType.AntiAffinityTopology;
  readonly topologyKey: string;
  /** The term's index in requiredDuringSchedulingIgnoredDuringExecution. */
  readonly term: number;
}

export type DenialFact =
  | AuthorizationFact
  | UnmappedOwnerFact
  | MissingServiceAccountFact
  | PullPolicyFact
  | NodeSelectorConflictFact
  | NodeSelectorWhitelistFact
  | TolerationWhitelistFact
  | ExternalIPsFact
  | AntiAffinityTopologyFact;

export interface Explanation {
  readonly facts: readonly DenialFact[];
  /** Set when the plugin stopped gathering facts before the end (a bound on questions or time). */
  readonly incomplete?: boolean;
}

/** One rejection's facts in the forms users meet them (src/explain makes them). */
export interface Explained {
  /** Whole sentences: what was denied, what is closest, what would grant it. */
  readonly lines: readonly string[];
  /** At most a few, each one line a kube-apiserver passes whole. */
  readonly warnings: readonly string[];
  readonly commands: readonly string[];
  readonly objects: readonly KubeObject[];
  /** The lines as YAML comments, then the objects as YAML documents, bounded for an audit annotation. */
  readonly text: string;
}

/** What the explainer knows of the server it explains for. */
export interface ExplainContext {
  /** The mutating plugins this server runs, in order (AlwaysPullImages among them or not). */
  readonly mutatingPlugins: readonly string[];
}

/** Turns a rejection's facts into its explanation; the chain is given one by the composition root. */
export interface Explainer {
  explain(explanation: Explanation, context: ExplainContext): Explained;
}

/** How many items of a user-controlled list a fact keeps: enough to act on, bounded for a 3 MiB object. */
export const maxFactItems = 8;

// Beside the error rather than on it: StatusError is apimachinery's type (src/api), and the facts
// speak of ports (authorization questions) that sit above it.
const explanations = new WeakMap<StatusError, Explanation>();

/** Attaches the facts to the error and returns it, for `throw explained(forbidden(...), {...})`. */
export function explained<E extends StatusError>(error: E, explanation: Explanation): E {
  explanations.set(error, explanation);
  return error;
}

/** The facts a plugin attached to its rejection, if any. */
export function explanationOf(error: StatusError): Explanation | undefined {
  return explanations.get(error);
}
