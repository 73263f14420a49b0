// The API server's first two questions about a webhook, answered the way it answers them: does a rule
// match the request (apiGroups/apiVersions/resources incl. subresources, operations, scope), and do all
// matchConditions hold. Used to check which requests the rendered configurations send us.
import { evaluateCelSubset } from './cel-subset.ts';

export interface RuleWithOperations {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
  scope?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface WebhookRequest {
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespaced: boolean;
  /** The new and old object as the API server would send them; absent means null (e.g. no old object on CREATE). */
  object?: unknown;
  oldObject?: unknown;
}

function matchesAny(values: string[], value: string): boolean {
  return values.includes('*') || values.includes(value);
}

// Resource entries: "pods" (main resource only), "pods/status", "*/*" (everything), "pods/*", "*/status".
function resourceMatches(entries: string[], resource: string, subresource: string): boolean {
  return entries.some((entry) => {
    const [entryResource, entrySubresource] = entry.split('/', 2) as [string, string | undefined];
    if (entrySubresource === undefined) return subresource === '' && (entryResource === '*' || entryResource === resource);
    return (entryResource === '*' || entryResource === resource) && (entrySubresource === '*' || entrySubresource === subresource);
  });
}

export function ruleMatches(rule: RuleWithOperations, request: WebhookRequest): boolean {
  const scope = rule.scope ?? '*';
  const scopeMatches = scope === '*' || (scope === 'Namespaced') === request.namespaced;
  return (
    matchesAny(rule.operations, request.operation) &&
    matchesAny(rule.apiGroups, request.group) &&
    matchesAny(rule.apiVersions, request.version) &&
    resourceMatches(rule.resources, request.resource, request.subresource ?? '') &&
    scopeMatches
  );
}

/** Would a webhook with these rules and conditions be called for the request (selectors aside)? */
export function webhookIsCalled(
  webhook: { rules: RuleWithOperations[]; matchConditions?: MatchCondition[] },
  request: WebhookRequest,
): boolean {
  if (!webhook.rules.some((rule) => ruleMatches(rule, request))) return false;
  const celRequest = {
    resource: { group: request.group, version: request.version, resource: request.resource },
    // kube-apiserver's CEL request omits an empty subResource (omitempty): reading it then errors.
    ...(request.subresource ? { subResource: request.subresource } : {}),
    operation: request.operation,
  };
  const variables = { request: celRequest, object: request.object ?? null, oldObject: request.oldObject ?? null };
  return (webhook.matchConditions ?? []).every((condition) => evaluateCelSubset(condition.expression, variables));
}
