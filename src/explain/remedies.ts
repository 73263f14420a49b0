// The remedy for each plugin denial that has one and is not about a permission: what in the object
// (or the cluster) to change, and the command or object that does it where there is one.
import { goQuote } from '../admission/errors.ts';
import {
  FactType,
  type AntiAffinityTopologyFact,
  type DenialFact,
  type ExternalIPsFact,
  type MissingServiceAccountFact,
  type NodeSelectorConflictFact,
  type NodeSelectorWhitelistFact,
  type PullPolicyFact,
  type TolerationWhitelistFact,
  type UnmappedOwnerFact,
} from '../admission/explanation.ts';
import type { Toleration } from '../api/core.ts';
import { cutToRunes, maxWarningRunes, runeCount, withoutControlCharacters } from './limits.ts';
import type { ExplanationPart } from './part.ts';
import { commandLine } from './shell.ts';

export interface RemedyContext {
  /** The mutating plugins this server runs, in order (AlwaysPullImages among them or not). */
  readonly mutatingPlugins: readonly string[];
}

type OtherFact = Exclude<DenialFact, { type: typeof FactType.Authorization }>;

export function remedyFor(fact: OtherFact, context: RemedyContext): ExplanationPart {
  switch (fact.type) {
    case FactType.UnmappedOwner:
      return unmappedOwner(fact);
    case FactType.MissingServiceAccount:
      return missingServiceAccount(fact);
    case FactType.PullPolicy:
      return pullPolicy(fact, context);
    case FactType.NodeSelectorConflict:
      return nodeSelectorConflict(fact);
    case FactType.NodeSelectorWhitelist:
      return nodeSelectorWhitelist(fact);
    case FactType.TolerationWhitelist:
      return tolerationWhitelist(fact);
    case FactType.ExternalIPs:
      return externalIPs(fact);
    case FactType.AntiAffinityTopology:
      return antiAffinityTopology(fact);
  }
}

function unmappedOwner(fact: UnmappedOwnerFact): ExplanationPart {
  return said([
    `the ownerReference to ${fact.kind} ${goQuote(fact.name)} (apiVersion ${goQuote(fact.apiVersion)}) names a kind the API server does not serve (${fact.error}), so its finalizers permission cannot be checked: correct its apiVersion and kind`,
  ]);
}

function missingServiceAccount(fact: MissingServiceAccountFact): ExplanationPart {
  const command = commandLine(['kubectl', 'create', 'serviceaccount', fact.name, '-n', fact.namespace]);
  return {
    lines: [`service account ${goQuote(fact.name)} does not exist in namespace ${goQuote(fact.namespace)}: create it, or set the pod's spec.serviceAccountName to one that exists`],
    warnings: [warning(`service account ${goQuote(fact.name)} does not exist in namespace ${goQuote(fact.namespace)}: create it, or name one that exists in spec.serviceAccountName`), ...asIs(command)],
    commands: [command],
    objects: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: fact.name, namespace: fact.namespace } }],
  };
}

function pullPolicy(fact: PullPolicyFact, context: RemedyContext): ExplanationPart {
  const [first] = fact.fields;
  const which = first === undefined ? 'a pull policy' : `${first.path} is ${goQuote(first.value)}`;
  const more = fact.total > 1 ? ` (and ${fact.total - 1} more)` : '';
  const fix = `${which}${more}, not "Always": set imagePullPolicy: Always on every container (and pullPolicy: Always on image volumes)`;
  const mutating = context.mutatingPlugins.includes('AlwaysPullImages')
    ? "this server's mutating webhook sets Always (AlwaysPullImages runs in /mutate): the pod reached /validate without it, so the mutating webhook did not see this request, or a later mutating webhook changed the policy back"
    : "nothing here would have set it: AlwaysPullImages does not run in this server's mutating webhook";
  return said([fix, mutating]);
}

function nodeSelectorConflict(fact: NodeSelectorConflictFact): ExplanationPart {
  const labels = fact.conflicts.map((c) => `${c.key}=${c.podValue} (the namespace requires ${c.key}=${c.namespaceValue})`).join(', ');
  return said([
    `the pod's nodeSelector asks for ${labels} in namespace ${goQuote(fact.namespace)}, whose node selector (annotation scheduler.alpha.kubernetes.io/node-selector, else the plugin's clusterDefaultNodeSelector) says otherwise: drop these labels from the pod, the namespace's own are added to it`,
  ]);
}

function nodeSelectorWhitelist(fact: NodeSelectorWhitelistFact): ExplanationPart {
  const labels = fact.labels.map((l) => `${l.key}=${l.value}${l.allowed === undefined ? '' : ` (allowed: ${l.key}=${l.allowed})`}`).join(', ');
  return said([
    `the pod's nodeSelector label${fact.labels.length > 1 ? 's' : ''} ${labels} ${fact.labels.length > 1 ? 'are' : 'is'} outside namespace ${goQuote(fact.namespace)}'s whitelist in the PodNodeSelector configuration (podNodeSelectorPluginConfig): remove ${fact.labels.length > 1 ? 'them' : 'it'}, or have the whitelist include ${fact.labels.length > 1 ? 'them' : 'it'}`,
  ]);
}

function tolerationWhitelist(fact: TolerationWhitelistFact): ExplanationPart {
  const where =
    fact.scope === 'namespace'
      ? `namespace ${goQuote(fact.namespace)}'s whitelist (annotation scheduler.alpha.kubernetes.io/tolerationsWhitelist)`
      : "the cluster-wide whitelist in the PodTolerationRestriction configuration (the namespace has no scheduler.alpha.kubernetes.io/tolerationsWhitelist annotation)";
  const listed = fact.tolerations.map(describeToleration).join(', ');
  const more = fact.total > fact.tolerations.length ? ` and ${fact.total - fact.tolerations.length} more` : '';
  return said([
    `toleration${fact.total > 1 ? 's' : ''} ${listed}${more} ${fact.total > 1 ? 'are' : 'is'} not covered by ${where}: remove ${fact.total > 1 ? 'them' : 'it'} from the pod (or from the namespace's default tolerations), or have the whitelist cover ${fact.total > 1 ? 'them' : 'it'}`,
  ]);
}

function externalIPs(fact: ExternalIPsFact): ExplanationPart {
  const more = fact.total > fact.added.length ? ` and ${fact.total - fact.added.length} more` : '';
  return said([
    `the Service adds spec.externalIPs ${fact.added.join(', ')}${more}: new external IPs are denied here (DenyServiceExternalIPs), as any of them could capture traffic meant for that address; remove them, and expose the Service through type LoadBalancer or NodePort instead`,
  ]);
}

function antiAffinityTopology(fact: AntiAffinityTopologyFact): ExplanationPart {
  return said([
    `spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[${fact.term}] uses topologyKey ${goQuote(fact.topologyKey)}: required anti-affinity may only use kubernetes.io/hostname; use that key, or move the term to preferredDuringSchedulingIgnoredDuringExecution`,
  ]);
}

/** `{"key":"gpu","operator":"Exists","effect":"NoSchedule"}`, the fields in the API's order. */
function describeToleration(toleration: Toleration): string {
  const fields: Record<string, unknown> = {};
  for (const key of ['key', 'operator', 'value', 'effect', 'tolerationSeconds'] as const) {
    if (toleration[key] !== undefined && toleration[key] !== '') fields[key] = toleration[key];
  }
  return JSON.stringify(fields);
}

/** A remedy that is advice only: every line is also a warning. */
function said(lines: string[]): ExplanationPart {
  return { lines, warnings: lines.map(warning), commands: [], objects: [] };
}

function warning(text: string): string {
  return cutToRunes(withoutControlCharacters(text), maxWarningRunes);
}

function asIs(command: string): string[] {
  return withoutControlCharacters(command) === command && runeCount(command) <= maxWarningRunes ? [command] : [];
}
