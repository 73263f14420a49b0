// An Authorizer that records every question and answer, passing them through as the inner one
// gives them.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../src/ports/authorizer.ts';

export interface RecordingAuthorizer extends Authorizer {
  readonly calls: AuthorizationAttributes[];
  readonly results: AuthorizationResult[];
}

export function recordingAuthorizer(inner: Authorizer): RecordingAuthorizer {
  const calls: AuthorizationAttributes[] = [];
  const results: AuthorizationResult[] = [];
  return {
    calls,
    results,
    async authorize(attributes, signal) {
      calls.push(structuredClone(attributes));
      const result = await inner.authorize(attributes, signal);
      results.push(result);
      return result;
    },
  };
}
