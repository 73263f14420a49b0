// The lookup policy of upstream getServiceAccount, proved with a recording clock (no real sleeps)
// and fixed or seeded randomness: cache first; on a miss 10 live GETs for `default` and exactly 1
// for any other name; one interval of 100 + rand(100) ms drawn once and reused between attempts;
// any error other than NotFound ends the search at once.
import { describe, expect, it } from 'vitest';
import { FixedRandom, RecordingClock, SeededRandom } from '../../../test/support/clock.ts';
import { type LiveAnswer, recordingLookup } from '../../../test/support/lookups.ts';
import { newForbidden, StatusError } from '../../api/status-error.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ServiceAccount } from '../../ports/lookups.ts';
import { getServiceAccount, ServiceAccountLookupError } from './lookup.ts';
import { type InformerCache, informerCache } from './testdata/upstream-cases.ts';

const account = (name: string): ServiceAccount => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'myns' } });
const signal = () => new AbortController().signal;

async function lookUp(name: string, script: LiveAnswer<ServiceAccount>[], cacheFixture: InformerCache = '') {
  const lookups = recordingLookup(informerCache(cacheFixture), { liveScript: script });
  const clock = new RecordingClock();
  const random = new FixedRandom(42);
  let result: ServiceAccount | undefined;
  let error: unknown;
  try {
    result = await getServiceAccount({ lookups: { serviceAccounts: lookups }, clock, random }, 'myns', name, signal());
  } catch (thrown) {
    error = thrown;
  }
  return { result, error, lookups, clock, random };
}

describe('getServiceAccount', () => {
  it('answers from the cache without a live read or a random draw', async () => {
    const { result, lookups, clock, random } = await lookUp('default', [], 'default-sa');
    expect(result?.metadata?.name).toBe('default');
    expect(lookups.calls.cached).toEqual(['myns/default']);
    expect(lookups.calls.live).toEqual([]);
    expect(clock.sleeps).toEqual([]);
    expect(random.intBelowCalls).toEqual([]);
  });

  it.each<{ name: string; script: LiveAnswer<ServiceAccount>[]; attempts: number; found: boolean }>([
    { name: 'default', script: ['not-found'], attempts: 10, found: false },
    { name: 'builder', script: ['not-found'], attempts: 1, found: false },
    { name: 'default', script: [account('default')], attempts: 1, found: true },
    { name: 'builder', script: [account('builder')], attempts: 1, found: true },
    { name: 'default', script: ['not-found', 'not-found', 'not-found', account('default')], attempts: 4, found: true },
    { name: 'default', script: [...Array<LiveAnswer<ServiceAccount>>(9).fill('not-found'), account('default')], attempts: 10, found: true },
    // An account named like the default in another case is not the default: one attempt.
    { name: 'Default', script: ['not-found'], attempts: 1, found: false },
  ])('$name with live answers $script.length: $attempts attempt(s)', async ({ name, script, attempts, found }) => {
    const { result, error, lookups, clock, random } = await lookUp(name, script);
    expect(lookups.calls.cached).toEqual([`myns/${name}`]);
    expect(lookups.calls.live).toEqual(Array(attempts).fill(`myns/${name}`));
    // The interval is drawn once (even for a single attempt) and reused for every pause.
    expect(random.intBelowCalls).toEqual([100]);
    expect(clock.sleeps).toEqual(Array(attempts - 1).fill(142));
    if (found) {
      expect(result?.metadata?.name).toBe(name);
    } else {
      expect(error).toBeInstanceOf(ServiceAccountLookupError);
      expect((error as Error).message).toBe(`serviceaccount "${name}" not found`);
      expect((error as ServiceAccountLookupError).forbidden).toBe(false);
    }
  });

  it.each<{ failOn: number; failure: Error; forbidden: boolean }>([
    { failOn: 0, failure: new Error('connection refused'), forbidden: false },
    { failOn: 2, failure: new Error('the server is currently unable to handle the request'), forbidden: false },
    {
      failOn: 5,
      failure: newForbidden({ group: '', resource: 'serviceaccounts' }, 'default', 'User "x" cannot get resource'),
      forbidden: true,
    },
  ])('stops at once on a non-NotFound error on attempt $failOn', async ({ failOn, failure, forbidden }) => {
    const script: LiveAnswer<ServiceAccount>[] = [...Array<LiveAnswer<ServiceAccount>>(failOn).fill('not-found'), failure];
    const { error, lookups, clock } = await lookUp('default', script);
    expect(lookups.calls.live).toHaveLength(failOn + 1);
    expect(clock.sleeps).toEqual(Array(failOn).fill(142));
    expect(error).toBeInstanceOf(ServiceAccountLookupError);
    expect((error as Error).message).toBe(failure.message);
    expect((error as ServiceAccountLookupError).forbidden).toBe(forbidden);
    expect((error as Error).cause).toBe(failure);
  });

  it.each(Array.from({ length: 40 }, (_, seed) => seed + 1))('seed %i: one interval in [100, 200) ms for all nine pauses', async (seed) => {
    const lookups = recordingLookup(informerCache(''), { liveScript: ['not-found'] });
    const clock = new RecordingClock();
    await expect(
      getServiceAccount({ lookups: { serviceAccounts: lookups }, clock, random: new SeededRandom(seed) }, 'myns', 'default', signal()),
    ).rejects.toThrow('serviceaccount "default" not found');
    expect(clock.sleeps).toHaveLength(9);
    const interval = clock.sleeps[0]!;
    expect(Number.isInteger(interval)).toBe(true);
    expect(interval).toBeGreaterThanOrEqual(100);
    expect(interval).toBeLessThan(200);
    expect(new Set(clock.sleeps)).toEqual(new Set([interval]));
  });

  it.each([0, 99])('random draw %i: every pause is 100 + draw ms (the ends of the range)', async (draw) => {
    const lookups = recordingLookup(informerCache(''), { liveScript: ['not-found'] });
    const clock = new RecordingClock();
    await expect(
      getServiceAccount({ lookups: { serviceAccounts: lookups }, clock, random: new FixedRandom(draw) }, 'myns', 'default', signal()),
    ).rejects.toBeInstanceOf(ServiceAccountLookupError);
    expect(clock.sleeps).toEqual(Array(9).fill(100 + draw));
  });

  it('passes the request signal to every live read and pause, and gives up when it aborts', async () => {
    const controller = new AbortController();
    const seenSignals: Array<AbortSignal | undefined> = [];
    const abortingClock: Clock = {
      now: () => 0,
      sleep: (_ms, sleepSignal) => {
        seenSignals.push(sleepSignal);
        controller.abort(new Error('admission deadline exceeded'));
        return Promise.reject(sleepSignal?.reason);
      },
    };
    const base = recordingLookup(informerCache(''), { liveScript: ['not-found'] });
    const accounts = {
      cached: base.cached,
      live: (ns: string, name: string, liveSignal?: AbortSignal) => {
        seenSignals.push(liveSignal);
        return base.live(ns, name, liveSignal);
      },
    };
    const lookup = getServiceAccount(
      { lookups: { serviceAccounts: accounts }, clock: abortingClock, random: new FixedRandom() },
      'myns',
      'default',
      controller.signal,
    );
    // The deadline is not a lookup answer: it surfaces as itself, not as a ServiceAccountLookupError.
    await expect(lookup).rejects.toThrow('admission deadline exceeded');
    await expect(lookup).rejects.not.toBeInstanceOf(ServiceAccountLookupError);
    expect(seenSignals).toEqual([controller.signal, controller.signal]);
    expect(base.calls.live).toHaveLength(1);
  });

  it('a live read that fails because the request was aborted is not reported as a lookup error', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const failing = new StatusError({ status: 'Failure', code: 504, reason: 'Timeout', message: 'aborted' });
    const lookups = recordingLookup(informerCache(''), { liveScript: [failing] });
    await expect(
      getServiceAccount(
        { lookups: { serviceAccounts: lookups }, clock: new RecordingClock(), random: new FixedRandom() },
        'myns',
        'default',
        controller.signal,
      ),
    ).rejects.toBe(failing);
  });
});
