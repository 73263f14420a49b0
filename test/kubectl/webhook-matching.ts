// Should a webhook be called for this request, and as which resource? kube-apiserver's answer
// (admission/plugin/webhook/generic ShouldCallHook): the namespaceSelector and objectSelector, then
// the rules — for matchPolicy Equivalent also against the equivalent resources (the same resource
// in other served versions), in rule order — and last every matchCondition.
import { ruleMatches } from '../deploy/webhook-match.ts';
import { evaluateCelSubset } from '../deploy/cel-subset.ts';
import type { AdmissionAttributes } from './admission-attributes.ts';
import { selectorMatches, type LabelSelector } from './label-selector.ts';
import type { Webhook } from './webhook-configurations.ts';
import type { GroupVersionKind, GroupVersionResource } from '../../src/api/types.ts';

/** The resource and kind a webhook is sent the request as (differs from the request's under Equivalent). */
export interface Invocation {
  webhook: Webhook;
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

export interface MatchEnvironment {
  /** A namespace's labels, or undefined when it does not exist. */
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** Other served versions of the same resource, with their kinds. */
  equivalents(resource: GroupVersionResource): Array<{ resource: GroupVersionResource; kind: GroupVersionKind }>;
}

export class NamespaceNotFoundError extends Error {
  readonly namespace: string;
  constructor(namespace: string) {
    super(`namespaces "${namespace}" not found`);
    this.namespace = namespace;
  }
}

export function shouldCallHook(webhook: Webhook, attributes: AdmissionAttributes, environment: MatchEnvironment): Invocation | undefined {
  if (!namespaceSelectorMatches(webhook, attributes, environment)) return undefined;
  if (!objectSelectorMatches(webhook, attributes)) return undefined;
  const invocation = matchRules(webhook, attributes, environment);
  if (invocation === undefined) return undefined;
  const request = {
    resource: invocation.resource,
    // kube-apiserver's CEL request omits an empty subResource (omitempty): reading it then errors.
    ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
    operation: attributes.operation,
    namespace: attributes.namespace,
    name: attributes.name,
  };
  const variables = { request, object: attributes.object ?? null, oldObject: attributes.oldObject ?? null };
  return (webhook.matchConditions ?? []).every((c) => evaluateCelSubset(c.expression, variables)) ? invocation : undefined;
}

function matchRules(webhook: Webhook, attributes: AdmissionAttributes, environment: MatchEnvironment): Invocation | undefined {
  const rules = webhook.rules ?? [];
  const matches = (resource: GroupVersionResource) =>
    rules.some((rule) =>
      ruleMatches(rule, { ...resource, subresource: attributes.subresource, operation: attributes.operation, namespaced: attributes.namespace !== '' }),
    );
  if (matches(attributes.resource)) return { webhook, resource: attributes.resource, kind: attributes.kind };
  if (webhook.matchPolicy !== 'Equivalent') return undefined;
  for (const equivalent of environment.equivalents(attributes.resource)) {
    if (matches(equivalent.resource)) return { webhook, ...equivalent };
  }
  return undefined;
}

// A cluster-scoped request (other than for a namespace) is never exempted; a namespace request is
// matched against the namespace's own labels.
function namespaceSelectorMatches(webhook: Webhook, attributes: AdmissionAttributes, environment: MatchEnvironment): boolean {
  const isNamespace = attributes.resource.group === '' && attributes.resource.resource === 'namespaces';
  if (attributes.namespace === '' && !isNamespace) return true;
  const selector = webhook.namespaceSelector;
  if (isEmpty(selector)) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace) {
    const namespaceObject = attributes.operation === 'DELETE' ? attributes.oldObject : attributes.object;
    labels = namespaceObject?.metadata?.labels ?? {};
  } else {
    labels = environment.namespaceLabels(attributes.namespace);
    if (labels === undefined) throw new NamespaceNotFoundError(attributes.namespace);
  }
  return selectorMatches(selector, labels);
}

// An empty selector matches everything; otherwise either the new or the old object must carry
// matching labels (so a request with neither object matches nothing).
function objectSelectorMatches(webhook: Webhook, attributes: AdmissionAttributes): boolean {
  if (isEmpty(webhook.objectSelector)) return true;
  const candidates = [attributes.object, attributes.oldObject].filter((o) => o !== undefined && o !== null);
  return candidates.some((o) => selectorMatches(webhook.objectSelector, o.metadata?.labels ?? {}));
}

function isEmpty(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}
