// Recorders for tests that watch a few of an adapter's observations: the rest do nothing.
import type { AuthorizationRecorder } from '../../src/ports/recorders.ts';

export function authorizationRecorder(observed: Partial<AuthorizationRecorder>): AuthorizationRecorder {
  return {
    cacheHit: () => {},
    cacheMiss: () => {},
    singleflightJoined: () => {},
    refreshCompleted: () => {},
    requestLimited: () => {},
    requestCompleted: () => {},
    ...observed,
  };
}
