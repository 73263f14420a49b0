// The remedy for each plugin denial that has one and is not about a permission: what in the object
// (or the cluster) to change, and the command or object that does it where there is one.

import {
  type AntiAffinityTopologyFact,
  type DenialFact,
  type ExplainContext,
  type ExternalIPsFact,
  FactType,
  type MissingServiceAccountFact,
  type NodeSelectorConflictFact,
  type NodeSelectorWhitelistFact,
  type PullPolicyFact,
  type TolerationWhitelistFact,
  type UnmappedOwnerFact,
} from '../admission/explanation.ts';
import type { Toleration } from '../api/core.ts';
import { goQuote } from '../api/go-format.ts';
import { cutToRunes, fitsWarningAsIs, maxWarningRunes, withoutControlCharacters } from './limits.ts';
import type { ExplanationPart } from './part.ts';
import { commandLine } from './shell.ts';

type OtherFact = Exclude<DenialFact, { type: typeof FactType.Authorization }>;

export function remedyFor(fact: OtherFact, context: ExplainContext): ExplanationPart {
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
  return advice(
    `the ownerReference to ${fact.kind} ${goQuote(fact.name)} (apiVersion ${goQuote(fact.apiVersion)}) names a kind the API server does not serve (${fact.error}), so the permission to set finalizers on it cannot be checked: correct its apiVersion and kind`,
    `ownerReference ${fact.kind} ${goQuote(fact.name)} (${fact.apiVersion}) is not a kind the API server serves: correct its apiVersion and kind`,
  );
}

function missingServiceAccount(fact: MissingServiceAccountFact): ExplanationPart {
  const command = commandLine(['kubectl', 'create', 'serviceaccount', fact.name, '-n', fact.namespace]);
  return {
    lines: [
      `service account ${goQuote(fact.name)} does not exist in namespace ${goQuote(fact.namespace)}: create it, or set the pod's spec.serviceAccountName to one that exists`,
    ],
    warnings: [
      warning(
        `service account ${goQuote(fact.name)} does not exist in namespace ${goQuote(fact.namespace)}: create it, or name one that exists in spec.serviceAccountName`,
      ),
      ...asIs(command),
    ],
    commands: [command],
    objects: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: fact.name, namespace: fact.namespace } }],
  };
}

function pullPolicy(fact: PullPolicyFact, context: ExplainContext): ExplanationPart {
  const [first] = fact.fields;
  const which = first === undefined ? 'a pull policy' : `${first.path} is ${goQuote(first.value)}`;
  const more = fact.total > 1 ? ` (and ${fact.total - 1} more)` : '';
  const mutated = context.mutatingPlugins.includes('AlwaysPullImages');
  const lines = [
    `${which}${more}, not "Always": every container needs imagePullPolicy: Always (and every image volume pullPolicy: Always)`,
    mutated
      ? "this server's mutating webhook sets Always (AlwaysPullImages runs in /mutate): the pod reached /validate without it, so the mutating webhook did not see this request, or a later mutating webhook changed the policy back"
      : "nothing here would have set it: AlwaysPullImages does not run in this server's mutating webhook",
  ];
  const short = [
    lines[0]!,
    mutated
      ? 'the mutating webhook sets Always (AlwaysPullImages in /mutate): it did not see this pod, or a later webhook changed the policy back'
      : "nothing here sets it: AlwaysPullImages is not in this server's mutating webhook",
  ];
  return { lines, warnings: short.map(warning), commands: [], objects: [] };
}

function nodeSelectorConflict(fact: NodeSelectorConflictFact): ExplanationPart {
  const asked = fact.conflicts.map((c) => `${c.key}=${c.podValue}`).join(', ');
  const required = fact.conflicts.map((c) => `${c.key}=${c.namespaceValue}`).join(', ');
  return advice(
    `the pod's nodeSelector asks for ${asked}, but namespace ${goQuote(fact.namespace)}'s node selector (its scheduler.alpha.kubernetes.io/node-selector annotation, else the PodNodeSelector configuration's clusterDefaultNodeSelector) requires ${required}: drop these labels from the pod; the namespace's own are added to it`,
    `nodeSelector ${asked} conflict${fact.conflicts.length > 1 ? '' : 's'} with namespace ${goQuote(fact.namespace)}'s node selector (${required}): drop ${fact.conflicts.length > 1 ? 'them' : 'it'} from the pod; the namespace's labels are added`,
  );
}

function nodeSelectorWhitelist(fact: NodeSelectorWhitelistFact): ExplanationPart {
  const labels = fact.labels
    .map((l) => `${l.key}=${l.value}${l.allowed === undefined ? '' : ` (allowed: ${l.key}=${l.allowed})`}`)
    .join(', ');
  const them = fact.labels.length > 1 ? 'them' : 'it';
  return advice(
    `the pod's nodeSelector ${labels} ${fact.labels.length > 1 ? 'are' : 'is'} outside namespace ${goQuote(fact.namespace)}'s whitelist in the PodNodeSelector configuration (podNodeSelectorPluginConfig): remove ${them}, or have the whitelist allow ${them}`,
    `nodeSelector ${labels} ${fact.labels.length > 1 ? 'are' : 'is'} outside namespace ${goQuote(fact.namespace)}'s PodNodeSelector whitelist: remove ${them}, or have the whitelist allow ${them}`,
  );
}

function tolerationWhitelist(fact: TolerationWhitelistFact): ExplanationPart {
  const listed = fact.tolerations.map(describeToleration).join(', ');
  const more = fact.total > fact.tolerations.length ? ` and ${fact.total - fact.tolerations.length} more` : '';
  const them = fact.total > 1 ? 'them' : 'it';
  const where =
    fact.scope === 'namespace'
      ? `namespace ${goQuote(fact.namespace)}'s whitelist (its scheduler.alpha.kubernetes.io/tolerationsWhitelist annotation)`
      : 'the cluster-wide whitelist of the PodTolerationRestriction configuration (the namespace has no scheduler.alpha.kubernetes.io/tolerationsWhitelist annotation)';
  const shortWhere =
    fact.scope === 'namespace'
      ? `namespace ${goQuote(fact.namespace)}'s tolerationsWhitelist`
      : "PodTolerationRestriction's cluster whitelist";
  return advice(
    `toleration${fact.total > 1 ? 's' : ''} ${listed}${more} ${fact.total > 1 ? 'are' : 'is'} not covered by ${where}: remove ${them} from the pod (or from the namespace's default tolerations), or have the whitelist cover ${them}`,
    `toleration ${fact.tolerations.map(describeToleration)[0] ?? ''}${fact.total > 1 ? ` (+${fact.total - 1})` : ''} is not in ${shortWhere}: remove ${them} from the pod, or have the whitelist cover ${them}`,
  );
}

function externalIPs(fact: ExternalIPsFact): ExplanationPart {
  const more = fact.total > fact.added.length ? ` and ${fact.total - fact.added.length} more` : '';
  return advice(
    `the Service adds spec.externalIPs ${fact.added.join(', ')}${more}: new external IPs are denied here (DenyServiceExternalIPs), since any of them could capture traffic meant for that address; remove them, and expose the Service through type LoadBalancer or NodePort instead`,
    `new external IP${fact.total > 1 ? 's' : ''} ${fact.added.join(', ')}${more} ${fact.total > 1 ? 'are' : 'is'} denied here (DenyServiceExternalIPs): remove ${fact.total > 1 ? 'them' : 'it'} from spec.externalIPs; expose the Service with type LoadBalancer or NodePort`,
  );
}

function antiAffinityTopology(fact: AntiAffinityTopologyFact): ExplanationPart {
  return advice(
    `spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[${fact.term}] uses topologyKey ${goQuote(fact.topologyKey)}: required anti-affinity may only use kubernetes.io/hostname; use that key, or move the term to preferredDuringSchedulingIgnoredDuringExecution`,
    `required pod anti-affinity term ${fact.term} uses topologyKey ${goQuote(fact.topologyKey)}; only kubernetes.io/hostname is allowed: use it, or make the term preferred`,
  );
}

/** `{"key":"gpu","operator":"Exists","effect":"NoSchedule"}`, the fields in the API's order. */
function describeToleration(toleration: Toleration): string {
  const fields: Record<string, unknown> = {};
  for (const key of ['key', 'operator', 'value', 'effect', 'tolerationSeconds'] as const) {
    if (toleration[key] !== undefined && toleration[key] !== '') fields[key] = toleration[key];
  }
  return JSON.stringify(fields);
}

/** A remedy that is advice only: the whole sentence, and a shorter one for the warning. */
function advice(line: string, short: string): ExplanationPart {
  return { lines: [line], warnings: [warning(short)], commands: [], objects: [] };
}

function warning(text: string): string {
  return cutToRunes(withoutControlCharacters(text), maxWarningRunes);
}

function asIs(command: string): string[] {
  return fitsWarningAsIs(command) ? [command] : [];
}
