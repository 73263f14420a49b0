// An Authorizer that records every question and answer, passing them through as the inner one
// gives them: directly when it answers at once, as a promise when it does.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../src/ports/authorizer.ts';
import { isPromiseLike } from '../../src/util/maybe-async.ts';

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
    authorize(attributes, signal) {
      calls.push(structuredClone(attributes));
      const record = (result: AuthorizationResult) => {
        results.push(result);
        return result;
      };
      const answer = inner.authorize(attributes, signal);
      return isPromiseLike(answer) ? answer.then(record) : record(answer);
    },
  };
}
