// Upstream admission_test.go TestEventRateLimiting, every row (testdata/upstream-cases.ts) on a clock
// the test steps; then what the table leaves implicit: the exact 429, several limits refusing at
// once, which kinds and operations are limited, and what the metrics are told.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { ManualClock } from '../../../test/support/clock.ts';
import { rejectedWith, syncRejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { attributesFrom, decodeReview } from '../../admission/review.ts';
import type { EventRateLimitType } from '../../ports/recorders.ts';
import type { Limit } from './configuration.ts';
import { eventRateLimit } from './index.ts';
import { eventRateLimitingCases, limitsOf, type RequestRow } from './testdata/upstream-cases.ts';

const context = requestContext();

/** Upstream's attributesForRequest: a CREATE in the core group of the row's kind, name "name". */
function attributesFor(row: RequestRow): Attributes {
  return attributesRecord(row.event, {
    kind: { group: '', version: 'version', kind: row.kind },
    resource: { group: '', version: 'version', resource: 'resource' },
    namespace: row.namespace ?? '',
    name: 'name',
    userInfo: { username: row.username ?? '' },
    dryRun: row.dryRun ?? false,
  });
}

describe('TestEventRateLimiting', () => {
  it.each(eventRateLimitingCases)('$name', (row) => {
    const clock = new ManualClock();
    const plugin = eventRateLimit({ limits: limitsOf(row) }, clock);
    row.requests.forEach((request, index) => {
      if (request.delaySeconds !== undefined) clock.advance(request.delaySeconds * 1000);
      const error = syncRejectionOf(() => plugin.validate!(attributesFor(request), context));
      expect(error === undefined, `request ${index} should have been ${request.accepted ? 'admitted' : 'blocked'}`).toBe(request.accepted);
      if (error !== undefined) expect(error.status.code).toBe(429);
    });
  });
});

const limit = (type: string, burst: number, overrides: Partial<Limit> = {}): Limit => ({ type, qps: 1, burst, cacheSize: 0, ...overrides });
const eventIn = (namespace: string, overrides: Partial<Attributes> = {}) =>
  attributesRecord(
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace }, source: { component: 'kubelet', host: 'node-1' } },
    {
      kind: { group: '', version: 'v1', kind: 'Event' },
      resource: { group: '', version: 'v1', resource: 'events' },
      namespace,
      name: 'e',
      userInfo: { username: 'system:node:node-1' },
      ...overrides,
    },
  );

describe('the refusal', () => {
  it("is apimachinery's TooManyRequests with upstream's message", () => {
    const plugin = eventRateLimit({ limits: [limit('Namespace', 1)] }, new ManualClock());
    plugin.validate!(eventIn('default'), context);
    const error = rejectedWith(() => plugin.validate!(eventIn('default'), context));
    expect(error.status).toEqual({
      status: 'Failure',
      code: 429,
      reason: 'TooManyRequests',
      message: 'Too many requests: limit reached on type Namespace for key default',
    });
  });

  it('names every limit that refused, in configuration order, each drawing its token', () => {
    const recorded: EventRateLimitType[] = [];
    const plugin = eventRateLimit({ limits: [limit('Server', 1), limit('User', 2), limit('SourceAndObject', 1)] }, new ManualClock(), {
      limitReached: (type) => recorded.push(type),
    });
    plugin.validate!(eventIn('a'), context);
    // The User bucket still had a token: the second event takes it even though Server refuses.
    expect(rejectedWith(() => plugin.validate!(eventIn('b'), context)).message).toBe(
      'Too many requests: [limit reached on type Server for key , limit reached on type SourceAndObject for key kubeletnode-1]',
    );
    expect(rejectedWith(() => plugin.validate!(eventIn('c'), context)).message).toBe(
      'Too many requests: [limit reached on type Server for key , limit reached on type User for key system:node:node-1, limit reached on type SourceAndObject for key kubeletnode-1]',
    );
    expect(recorded).toEqual(['Server', 'SourceAndObject', 'Server', 'User', 'SourceAndObject']);
  });

  it('refills at qps tokens a second, never beyond burst', () => {
    const clock = new ManualClock();
    const plugin = eventRateLimit({ limits: [limit('Server', 2, { qps: 4 })] }, clock);
    const admitted = () => syncRejectionOf(() => plugin.validate!(eventIn('default'), context)) === undefined;
    expect([admitted(), admitted(), admitted()]).toEqual([true, true, false]);
    clock.advance(249);
    expect(admitted()).toBe(false);
    clock.advance(1);
    expect([admitted(), admitted()]).toEqual([true, false]);
    clock.advance(60_000);
    expect([admitted(), admitted(), admitted()]).toEqual([true, true, false]);
  });
});

describe('what is limited', () => {
  const exhausted = () => {
    const plugin = eventRateLimit({ limits: [limit('Server', 1)] }, new ManualClock());
    plugin.validate!(eventIn('default'), context);
    return plugin;
  };

  it('handles creates and updates, as upstream NewHandler(Create, Update)', () => {
    const plugin = exhausted();
    expect(allOperations.filter((operation) => plugin.handles(operation))).toEqual([Operation.Create, Operation.Update]);
    expect(rejectedWith(() => plugin.validate!(eventIn('default', { operation: Operation.Update }), context)).status.code).toBe(429);
  });

  it('leaves dry runs alone', () => {
    expect(syncRejectionOf(() => exhausted().validate!(eventIn('default', { dryRun: true }), context))).toBeUndefined();
  });

  it('limits the core Event kind only, whatever the resource is called', () => {
    const plugin = exhausted();
    const events = { group: 'events.k8s.io', version: 'v1', kind: 'Event' };
    expect(syncRejectionOf(() => plugin.validate!(eventIn('default', { kind: events }), context))).toBeUndefined();
    expect(
      syncRejectionOf(() => plugin.validate!(eventIn('default', { kind: { ...events, group: 'example.com' } }), context)),
    ).toBeUndefined();
    const renamed = eventIn('default', { resource: { group: '', version: 'v1', resource: 'anything' } });
    expect(rejectedWith(() => plugin.validate!(renamed, context)).status.code).toBe(429);
  });

  it('judges an events.k8s.io Event sent as a core one (matchPolicy Equivalent) by the kind it was made as', () => {
    const plugin = exhausted();
    const converted = eventIn('default', { requestKind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' } });
    expect(syncRejectionOf(() => plugin.validate!(converted, context))).toBeUndefined();
    const fromV1beta1 = eventIn('default', { requestKind: { group: '', version: 'v1beta1', kind: 'Event' } });
    expect(rejectedWith(() => plugin.validate!(fromV1beta1, context)).status.code).toBe(429);
  });

  it("reads the request's kind from the AdmissionReview kube-apiserver sends", () => {
    const review = (requestKind: unknown) => {
      const { request } = decodeReview({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'u',
          operation: 'CREATE',
          kind: { group: '', version: 'v1', kind: 'Event' },
          resource: { group: '', version: 'v1', resource: 'events' },
          requestKind,
          namespace: 'default',
          userInfo: { username: 'alice' },
          object: { apiVersion: 'v1', kind: 'Event' },
        },
      });
      return attributesFrom(request, request.object ?? undefined);
    };
    const plugin = exhausted();
    expect(
      syncRejectionOf(() => plugin.validate!(review({ group: 'events.k8s.io', version: 'v1', kind: 'Event' }), context)),
    ).toBeUndefined();
    expect(review({ group: '', version: 'v1', kind: 'Event' }).requestKind).toBeUndefined();
    expect(rejectedWith(() => plugin.validate!(review({ group: '', version: 'v1', kind: 'Event' }), context)).status.code).toBe(429);
    expect(() => review({ group: '', version: 'v1' })).toThrow('request.requestKind.kind is missing');
  });

  it('keys SourceAndObject by the event fields even when some are not strings, and "" without an object', () => {
    const plugin = eventRateLimit({ limits: [limit('SourceAndObject', 1)] }, new ManualClock());
    const odd = eventIn('default');
    odd.object = { kind: 'Event', source: { component: 7, host: 'h' }, involvedObject: 'not an object' };
    plugin.validate!(odd, context);
    expect(rejectedWith(() => plugin.validate!(odd, context)).message).toBe(
      'Too many requests: limit reached on type SourceAndObject for key h',
    );
    const none = eventIn('default');
    none.object = undefined;
    plugin.validate!(none, context);
    expect(rejectedWith(() => plugin.validate!(none, context)).message).toBe(
      'Too many requests: limit reached on type SourceAndObject for key ',
    );
  });
});
