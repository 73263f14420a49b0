// Test doubles for our own ports (upstream's tests use a fake clientset and informer store the same
// way) and builders for admission attributes. Used only by this folder's *.test.ts files.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLocalLookups } from '../../adapters/local/lookups.ts';
import { emptyClusterState, parseClusterState } from '../../adapters/local/cluster-state.ts';
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import type { Operation } from '../../admission/operation.ts';
import type { KubeObject } from '../../api/types.ts';
import type { Clock, Random } from '../../ports/clock.ts';
import type { PortsWith } from '../../admission/plugin.ts';
import { silentLogger } from '../../ports/logger.ts';
import type { Lookups, ServiceAccount } from '../../ports/lookups.ts';

/** Lookups backed by a cluster-state fixture in test/fixtures/serviceaccount/ ('' for none). */
export function fixtureLookups(file: string): Lookups {
  if (file === '') return createLocalLookups(emptyClusterState());
  const path = fileURLToPath(new URL(`../../../test/fixtures/serviceaccount/${file}`, import.meta.url));
  return createLocalLookups(parseClusterState(readFileSync(path, 'utf8'), path));
}

/** A clock that records each requested pause and resolves at once. */
export class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  now(): number {
    return 0;
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return Promise.resolve();
  }
}

/** Fixed answers: intBelow returns `offset` (checked against n), alphanumeric repeats `suffix`. */
export class FixedRandom implements Random {
  readonly intBelowCalls: number[] = [];
  private readonly offset: number;
  private readonly suffix: string;
  constructor(offset = 42, suffix = 'x7k2q') {
    this.offset = offset;
    this.suffix = suffix;
  }
  intBelow(n: number): number {
    this.intBelowCalls.push(n);
    if (this.offset >= n) throw new Error(`FixedRandom offset ${this.offset} is not below ${n}`);
    return this.offset;
  }
  alphanumeric(n: number): string {
    return this.suffix.repeat(Math.ceil(n / this.suffix.length)).slice(0, n);
  }
}

/** A seeded generator (mulberry32) for properties that must hold for any random draw. */
export class SeededRandom implements Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  intBelow(n: number): number {
    return Math.floor(this.next() * n);
  }
  alphanumeric(n: number): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}

/** What a live GET does on a given attempt: answer with an account, NotFound, or throw. */
export type LiveAnswer = ServiceAccount | 'not-found' | Error;

/**
 * Service-account lookups that count cache and live reads. The cache comes from a fixture; live
 * answers follow the script (the last entry repeats), or fall back to the fixture.
 */
export class RecordingLookups implements Lookups {
  readonly cachedCalls: string[] = [];
  readonly liveCalls: string[] = [];
  readonly secrets: Lookups['secrets'];
  readonly runtimeClasses: Lookups['runtimeClasses'];
  readonly namespaces: Lookups['namespaces'];
  readonly serviceAccounts: Lookups['serviceAccounts'];

  constructor(cache: Lookups, liveScript: LiveAnswer[] = [], live: Lookups = cache) {
    const refuse = (what: string) => () => {
      throw new Error(`the ServiceAccount plugin must not read ${what}`);
    };
    this.secrets = { cached: refuse('secrets'), live: refuse('secrets') };
    this.runtimeClasses = { cached: refuse('runtime classes'), live: refuse('runtime classes') };
    this.namespaces = { cached: refuse('namespaces'), live: refuse('namespaces') };
    this.serviceAccounts = {
      cached: (namespace, name) => {
        this.cachedCalls.push(`${namespace}/${name}`);
        return cache.serviceAccounts.cached(namespace, name);
      },
      live: async (namespace, name, signal) => {
        const attempt = this.liveCalls.length;
        this.liveCalls.push(`${namespace}/${name}`);
        if (liveScript.length === 0) return live.serviceAccounts.live(namespace, name, signal);
        const answer = liveScript[Math.min(attempt, liveScript.length - 1)]!;
        if (answer === 'not-found') return undefined;
        if (answer instanceof Error) throw answer;
        return structuredClone(answer);
      },
    };
  }
}

export function testPorts(lookups: Lookups, clock: Clock = new RecordingClock(), random: Random = new FixedRandom()): PortsWith<'lookups'> {
  return { logger: silentLogger, clock, random, lookups };
}

export interface AttributesInput {
  object: KubeObject | undefined;
  operation?: Operation;
  subresource?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

/** upstream admission.NewAttributesRecord(obj, nil, Pod, "myns", "myname", pods, sub, op, ...). */
export function podAttributes(input: AttributesInput): Attributes {
  return {
    uid: 'test-uid',
    operation: input.operation ?? 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: input.resource ?? 'pods' },
    subresource: input.subresource ?? '',
    namespace: input.namespace ?? 'myns',
    name: input.name ?? 'myname',
    object: input.object,
    oldObject: undefined,
    userInfo: { username: 'tester' },
    dryRun: false,
    options: undefined,
  };
}

export function testContext(signal: AbortSignal = new AbortController().signal): RequestContext {
  return { signal, annotate: () => {}, warn: () => {} };
}
