// Authorization questions, rules and grants in words: `update deployments/finalizers (apps) "web"
// in namespace "team-a"`. Quoting is a parameter so a warning can shorten long names.

import { goQuote } from '../api/go-format.ts';
import type { PolicyRule } from '../api/rbac.ts';
import type { AuthorizationAttributes } from '../ports/authorizer.ts';
import { type ClosestGrant, GrantShortfall } from '../ports/grants.ts';

export type Quote = (value: string) => string;

/** Quotes a value cut to `max` characters (with "…"), so one long name cannot crowd out the rest. */
export function shortQuote(max: number): Quote {
  return (value) => goQuote(value.length > max ? `${value.slice(0, max - 1)}…` : value);
}

export function describeQuestion(attributes: AuthorizationAttributes, quote: Quote = goQuote): string {
  const resource = attributes.resourceAttributes;
  if (resource === undefined) {
    const { verb, path } = attributes.nonResourceAttributes ?? { verb: '', path: '' };
    return `${verb} ${quote(path)}`;
  }
  const combined = resource.subresource ? `${resource.resource ?? ''}/${resource.subresource}` : (resource.resource ?? '');
  const group = resource.group ? ` (${resource.group})` : '';
  const name = resource.name ? ` ${quote(resource.name)}` : '';
  const where = resource.namespace ? ` in namespace ${quote(resource.namespace)}` : ' cluster-wide';
  return `${resource.verb ?? ''} ${combined}${group}${name}${where}`;
}

/** `update on deployments (apps) named "a"`. */
export function describeRule(rule: PolicyRule, quote: Quote = goQuote): string {
  const verbs = (rule.verbs ?? []).join(',');
  if ((rule.nonResourceURLs ?? []).length > 0 && (rule.resources ?? []).every((r) => r === '')) {
    return `${verbs} on ${(rule.nonResourceURLs ?? []).map(quote).join(', ')}`;
  }
  const groups = (rule.apiGroups ?? []).filter((g) => g !== '');
  const names = rule.resourceNames ?? [];
  return `${verbs} on ${(rule.resources ?? []).join(',')}${groups.length > 0 ? ` (${groups.join(',')})` : ''}${names.length > 0 ? ` named ${names.map(quote).join(', ')}` : ''}`;
}

/** `RoleBinding "deployer/team-a" of Role "deployer" to User "demo-user" allows update on deployments (apps), not deployments/finalizers`. */
export function describeClosestGrant(grant: ClosestGrant, attributes: AuthorizationAttributes, quote: Quote = goQuote): string {
  if (grant.elsewhere !== undefined) return `${grant.source} allows exactly this, but only in namespace ${quote(grant.elsewhere)}`;
  const resource = attributes.resourceAttributes;
  const verb = resource?.verb ?? attributes.nonResourceAttributes?.verb ?? '';
  const combined = `${resource?.resource ?? ''}/${resource?.subresource ?? ''}`;
  const lacksVerb = grant.lacks.includes(GrantShortfall.Verb);
  const lacksSubresource = grant.lacks.includes(GrantShortfall.Subresource);
  const what = lacksVerb && lacksSubresource ? `${verb} on ${combined}` : lacksVerb ? verb : lacksSubresource ? combined : '';
  const lacking: string[] = [];
  if (what !== '') lacking.push(`not ${what}`);
  if (grant.lacks.includes(GrantShortfall.ApiGroup)) lacking.push(`not in API group ${quote(resource?.group ?? '')}`);
  if (grant.lacks.includes(GrantShortfall.Name)) lacking.push(`not ${quote(resource?.name ?? '')}`);
  return `${grant.source} allows ${describeRule(relevantPart(grant, attributes), quote)}, ${lacking.join(', ')}`;
}

/** The rule as far as it concerns the question: its verbs, on the resource asked about (or its parent). */
function relevantPart(grant: ClosestGrant, attributes: AuthorizationAttributes): PolicyRule {
  const resource = attributes.resourceAttributes;
  if (resource === undefined) return { verbs: grant.rule.verbs, nonResourceURLs: [attributes.nonResourceAttributes?.path ?? ''] };
  const asked = grant.lacks.includes(GrantShortfall.Subresource)
    ? (resource.resource ?? '')
    : resource.subresource
      ? `${resource.resource ?? ''}/${resource.subresource}`
      : (resource.resource ?? '');
  const resources = (grant.rule.resources ?? []).includes(asked) ? [asked] : (grant.rule.resources ?? []);
  const rule: PolicyRule = { verbs: grant.rule.verbs, apiGroups: grant.rule.apiGroups ?? [], resources };
  if (grant.rule.resourceNames !== undefined) rule.resourceNames = grant.rule.resourceNames;
  return rule;
}
