// Per-plugin exemptions: who and where one plugin does not act, while the others still do. The
// webhook-wide selectors keep requests from reaching the webhook at all; these skip one plugin for
// a request that did reach it. Namespace label rules read the request's namespace; when it cannot be
// read the rule does not match and the plugin runs (fail closed), and a cluster-scoped request has
// no namespace for a namespace rule to match.
import { formatLabelSelector, type LabelSelector, labelSelectorMatches } from '../api/label-selector.ts';
import type { UserInfo } from '../api/types.ts';
import type { Namespace, ResourceLookup } from '../ports/lookups.ts';

export interface ExemptionRules {
  /** Namespace names. */
  readonly namespaces: readonly string[];
  /** A namespace whose labels match any one of these is exempt. */
  readonly namespaceSelectors: readonly LabelSelector[];
  readonly users: readonly string[];
  readonly groups: readonly string[];
  /** "namespace/name": the request's user is system:serviceaccount:namespace:name. */
  readonly serviceAccounts: readonly string[];
}

/** The part of a request the rules look at. */
export interface ExemptionSubject {
  readonly namespace: string;
  readonly userInfo: UserInfo;
}

/**
 * The request's namespace's labels, read at most once per request: undefined when the namespace
 * cannot be read (not found, an error, the deadline), which matches no selector.
 */
export type NamespaceLabels = () => Promise<Readonly<Record<string, string>> | undefined>;

/** One plugin's rules, compiled: which rule exempts a request, in words for the annotation and the log. */
export interface PluginExemption {
  /** Whether some rule needs the namespace's labels (so the backend must read namespaces). */
  readonly readsNamespaceLabels: boolean;
  /** The rule that matched ('namespace "istio-system"'), or undefined: the plugin runs. */
  match(subject: ExemptionSubject, namespaceLabels: NamespaceLabels): Promise<string | undefined>;
}

const serviceAccountPrefix = 'system:serviceaccount:';

export function compileExemption(rules: ExemptionRules): PluginExemption {
  const users = new Set(rules.users);
  const groups = new Set(rules.groups);
  const namespaces = new Set(rules.namespaces);
  const serviceAccounts = new Set(rules.serviceAccounts);
  const selectors = rules.namespaceSelectors;
  return {
    readsNamespaceLabels: selectors.length > 0,
    async match({ namespace, userInfo }, namespaceLabels) {
      // What the request itself says first; a namespace read only when nothing else matched.
      const username = userInfo.username ?? '';
      if (users.has(username)) return `user ${JSON.stringify(username)}`;
      const serviceAccount = serviceAccountOf(username);
      if (serviceAccount !== undefined && serviceAccounts.has(serviceAccount)) return `serviceAccount ${JSON.stringify(serviceAccount)}`;
      const group = (userInfo.groups ?? []).find((g) => groups.has(g));
      if (group !== undefined) return `group ${JSON.stringify(group)}`;
      if (namespace === '') return undefined;
      if (namespaces.has(namespace)) return `namespace ${JSON.stringify(namespace)}`;
      if (selectors.length === 0) return undefined;
      const labels = await namespaceLabels();
      if (labels === undefined) return undefined;
      const index = selectors.findIndex((selector) => labelSelectorMatches(selector, labels));
      if (index < 0) return undefined;
      return `namespaceSelectors[${index}] ${JSON.stringify(formatLabelSelector(selectors[index]!))} (namespace ${JSON.stringify(namespace)})`;
    },
  };
}

/** "system:serviceaccount:ns:name" → "ns/name"; undefined for any other user. */
function serviceAccountOf(username: string): string | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return `${parts[0]}/${parts[1]}`;
}

/**
 * The request's namespace's labels from the namespaces lookup: the cache first, then one live read
 * (as PodNodeSelector reads a namespace), at most once however many plugins ask. Any failure, and
 * no lookup at all, reads as undefined.
 */
export function namespaceLabelsOf(namespaces: ResourceLookup<Namespace> | undefined, name: string, signal: AbortSignal): NamespaceLabels {
  let read: Promise<Readonly<Record<string, string>> | undefined> | undefined;
  return () => {
    read ??= readLabels(namespaces, name, signal);
    return read;
  };
}

async function readLabels(
  namespaces: ResourceLookup<Namespace> | undefined,
  name: string,
  signal: AbortSignal,
): Promise<Readonly<Record<string, string>> | undefined> {
  if (namespaces === undefined || name === '' || signal.aborted) return undefined;
  try {
    const found = namespaces.cached('', name) ?? (await namespaces.live('', name, signal));
    return found === undefined ? undefined : (found.metadata?.labels ?? {});
  } catch {
    return undefined;
  }
}
