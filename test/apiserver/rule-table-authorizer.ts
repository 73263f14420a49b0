// A tiny table-driven Authorizer for stand-in tests that need a decision without an RBAC model:
// the first rule whose predicate matches decides; nothing matching is "no opinion" (as RBAC).
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../src/ports/authorizer.ts';

export interface AuthorizationRule {
  matches(attributes: AuthorizationAttributes): boolean;
  result: AuthorizationResult;
}

export function ruleTableAuthorizer(rules: readonly AuthorizationRule[]): Authorizer & { readonly seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    async authorize(attributes) {
      seen.push(structuredClone(attributes));
      const rule = rules.find((r) => r.matches(attributes));
      return rule?.result ?? { decision: 'no-opinion', reason: '' };
    },
  };
}
