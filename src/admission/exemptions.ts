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

/** One plugin's rules, compiled: which rule exempts a request, in words for the annotation and the log. */
export interface PluginExemption {
  /** The rule that matched ('namespace "istio-system"'), or undefined: the plugin runs. */
  match(subject: ExemptionSubject, reads: NamespaceReads): Promise<string | undefined>;
}

const serviceAccountPrefix = 'system:serviceaccount:';

/**
 * `namespaces` is where label selectors read the request's namespace (none: no selector matches).
 * The exemption carries it, so an entry taken out of its chain still decides as the chain would.
 */
export function compileExemption(rules: ExemptionRules, namespaces?: ResourceLookup<Namespace>): PluginExemption {
  const users = new Set(rules.users);
  const groups = new Set(rules.groups);
  const names = new Set(rules.namespaces);
  const serviceAccounts = new Set(rules.serviceAccounts);
  const selectors = rules.namespaceSelectors;
  return {
    async match({ namespace, userInfo }, reads) {
      // What the request itself says first; a namespace read only when nothing else matched.
      const username = userInfo.username ?? '';
      if (users.has(username)) return `user ${JSON.stringify(username)}`;
      const serviceAccount = serviceAccountOf(username);
      if (serviceAccount !== undefined && serviceAccounts.has(serviceAccount)) return `serviceAccount ${JSON.stringify(serviceAccount)}`;
      const group = (userInfo.groups ?? []).find((g) => groups.has(g));
      if (group !== undefined) return `group ${JSON.stringify(group)}`;
      if (namespace === '') return undefined;
      if (names.has(namespace)) return `namespace ${JSON.stringify(namespace)}`;
      if (selectors.length === 0) return undefined;
      const labels = await reads.labels(namespaces, namespace);
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

type Labels = Readonly<Record<string, string>>;

/**
 * One request's namespace reads, shared by every plugin it passes: each namespace read at most once,
 * from the lookup's cache first, then one live read (as PodNodeSelector reads a namespace). Any
 * failure, the request's deadline, and no lookup at all read as undefined, which matches no selector.
 */
export class NamespaceReads {
  readonly #signal: AbortSignal;
  readonly #reads = new Map<ResourceLookup<Namespace>, Map<string, Promise<Labels | undefined>>>();

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  labels(namespaces: ResourceLookup<Namespace> | undefined, name: string): Promise<Labels | undefined> {
    if (namespaces === undefined || name === '') return Promise.resolve(undefined);
    let byName = this.#reads.get(namespaces);
    if (byName === undefined) this.#reads.set(namespaces, (byName = new Map()));
    let read = byName.get(name);
    if (read === undefined) byName.set(name, (read = readLabels(namespaces, name, this.#signal)));
    return read;
  }
}

async function readLabels(namespaces: ResourceLookup<Namespace>, name: string, signal: AbortSignal): Promise<Labels | undefined> {
  if (signal.aborted) return undefined;
  try {
    const found = namespaces.cached('', name) ?? (await namespaces.live('', name, signal));
    return found === undefined ? undefined : (found.metadata?.labels ?? {});
  } catch {
    return undefined;
  }
}
