// Recorders for tests that watch a few of an adapter's observations: the rest do nothing; and one
// that keeps every observation of the lookups and their informer caches as a line.
import type { AuthorizationRecorder, InformerRecorder, LookupRecorder } from '../../src/ports/recorders.ts';

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

/** The informer caches' observations, and the reads as the webhook's decorator counts them. */
export class LookupEventRecorder implements InformerRecorder, LookupRecorder {
  readonly events: string[] = [];
  cacheRead({ resource, found }: { resource: string; found: boolean }) {
    this.events.push(`cache ${resource} ${found ? 'hit' : 'miss'}`);
  }
  liveRead({ resource, result }: { resource: string; result: string }) {
    this.events.push(`live ${resource} ${result}`);
  }
  retried() {}
  informerError(resource: string) {
    this.events.push(`error ${resource}`);
  }
  informerRestart(resource: string, reason: string) {
    this.events.push(`restart ${resource} ${reason}`);
  }
  informerList(resource: string) {
    this.events.push(`list ${resource}`);
  }
  count(event: string): number {
    return this.events.filter((e) => e === event).length;
  }
}
