// Fuzzing the webhook over real HTTPS with every plugin on: AdmissionReviews from the fixtures,
// changed at random (values replaced by the wrong type, keys dropped or added, lists repeated,
// strings made odd) or cut and garbled as bytes. Every answer must be one a caller can act on: a
// 200 AdmissionReview that echoes the uid (a patch that applies to the object it came with), or a
// 4xx Status with a reason; never a 5xx, a dropped connection, a stack trace, or a plugin's own
// crash. The seed is fixed, so a failure names the case that reproduces it.
// `npm test` runs FUZZ_CASES (default 2,000); `npm run fuzz` runs 50,000.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClusterState } from '../../src/adapters/local/cluster-state.ts';
import { loadAdmissionConfiguration } from '../../src/config/admission-configuration.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { type RunningServer, startServer } from '../../src/server/server.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';
import { buildChain } from '../../src/wiring/chain.ts';
import { createLocalBackend } from '../../src/wiring/local.ts';
import { type CertFiles, writeTestCertificates } from '../support/certs.ts';
import { post, type TestResponse } from '../support/https-client.ts';
import { unreachableImageReviewBackend } from '../support/image-review-backend.ts';

const cases = Number(process.env.FUZZ_CASES ?? 2000);
const seed = Number(process.env.FUZZ_SEED ?? 20261201);
const fixtures = join(import.meta.dirname, '../fixtures');

/** Every AdmissionReview among the fixtures, plus reviews that reach the plugins the fixtures do not. */
function seeds(): unknown[] {
  const out: unknown[] = [];
  for (const dir of readdirSync(fixtures)) {
    for (const file of readdirSync(join(fixtures, dir)).filter((f) => f.endsWith('.json'))) {
      const body: unknown = JSON.parse(readFileSync(join(fixtures, dir, file), 'utf8'));
      if ((body as { kind?: string }).kind === 'AdmissionReview') out.push(body);
    }
  }
  const review = (request: Record<string, unknown>) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'seed', userInfo: { username: 'alice', groups: ['team-a'] }, operation: 'CREATE', ...request },
  });
  const pods = { kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' } };
  out.push(
    review({
      ...pods,
      namespace: 'team-a',
      name: 'p',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', blockOwnerDeletion: true }],
        },
        spec: {
          containers: [{ name: 'a', image: 'a', resources: { requests: { 'example.com/gpu': '1' } } }],
          tolerations: [{ key: 'pool', operator: 'Equal', value: 'team-a' }],
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: {} }] } },
        },
      },
    }),
    review({
      ...pods,
      namespace: 'team-a',
      name: 'p',
      operation: 'UPDATE',
      object: { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'b' }] } },
      oldObject: { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'a' }] } },
    }),
    review({
      kind: { group: '', version: 'v1', kind: 'Service' },
      resource: { group: '', version: 'v1', resource: 'services' },
      namespace: 'shared',
      name: 's',
      object: { kind: 'Service', metadata: { name: 's' }, spec: { externalIPs: ['1.2.3.4'] } },
    }),
    review({
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      namespace: 'team-a',
      name: 'd',
      operation: 'UPDATE',
      object: {
        kind: 'Deployment',
        metadata: { name: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'n', blockOwnerDeletion: true }] },
      },
      oldObject: { kind: 'Deployment', metadata: { name: 'd' } },
    }),
  );
  return out;
}

/** What a changed value may become: every JSON type, odd strings, and small nests of them. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 8 : 11));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 2 ** 31) * (next() < 0.5 ? -1 : 1);
    case 3:
      return next() * 1e308;
    case 4:
      return '';
    case 5:
      return ['Always', 'Never', 'Exists', 'Equal', 'NoExecute', 'kube-system', 'default', '*', '__proto__', 'system:masters'][
        Math.floor(next() * 10)
      ];
    case 6:
      return String.fromCodePoint(
        ...Array.from({ length: 1 + Math.floor(next() * 12) }, () => Math.floor(next() * 0x2ffff)).filter((c) => c < 0xd800 || c > 0xdfff),
      );
    case 7:
      return 'x'.repeat(Math.floor(next() * 5000));
    case 8:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--)
        object[['name', 'key', 'uid', 'spec', 'metadata', 'image', '__proto__', 'operator'][Math.floor(next() * 8)]!] = randomValue(
          next,
          depth + 1,
        );
      return object;
    }
  }
}

/** Changes one to three places in the review, in place. */
function mutate(review: unknown, next: () => number): void {
  for (let n = 1 + Math.floor(next() * 3); n > 0; n--) {
    // Walk down from the root to a random place.
    let holder: Record<string, unknown> | unknown[] = review as Record<string, unknown>;
    let key: string | number = 'request';
    for (let depth = 0; depth < 12; depth++) {
      const value = (holder as Record<string | number, unknown>)[key];
      if (typeof value !== 'object' || value === null || next() < 0.2) break;
      const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
      if (keys.length === 0) break;
      holder = value as Record<string, unknown>;
      key = keys[Math.floor(next() * keys.length)]!;
    }
    const action = next();
    const target = holder as Record<string | number, unknown>;
    if (action < 0.5) target[key] = randomValue(next);
    else if (action < 0.7) {
      if (Array.isArray(holder)) holder.splice(Number(key), 1);
      else delete target[key];
    } else if (action < 0.85 && Array.isArray(holder)) {
      holder.push(...Array.from({ length: 1 + Math.floor(next() * 20) }, () => structuredClone(holder[Number(key)])));
    } else {
      target[Array.isArray(holder) ? holder.length : `fuzz-${Math.floor(next() * 100)}`] = randomValue(next);
    }
  }
}

/** Byte-level damage: cut short, a byte changed, bytes inserted. */
function garble(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  const action = next();
  if (action < 0.4) return text.slice(0, at);
  if (action < 0.7) return text.slice(0, at) + String.fromCharCode(Math.floor(next() * 256)) + text.slice(at + 1);
  return text.slice(0, at) + ['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', 'null'][Math.floor(next() * 10)] + text.slice(at);
}

describe(`fuzzed AdmissionReviews (${cases} cases, seed ${seed})`, () => {
  let certs: CertFiles;
  let server: RunningServer;
  let agent: Agent;

  beforeAll(async () => {
    certs = await writeTestCertificates();
    const state = parseClusterState(
      [
        readFileSync(join(fixtures, 'namespace-plugins/cluster-state.yaml'), 'utf8'),
        readFileSync(join(fixtures, 'runtimeclass/cluster-state.yaml'), 'utf8'),
        readFileSync(join(fixtures, 'ownerreferences/cluster-state.yaml'), 'utf8'),
        readFileSync(join(import.meta.dirname, '../../examples/cluster-state.yaml'), 'utf8'),
        // The default accounts the ServiceAccount plugin would otherwise wait for (ten tries).
        ...['team-a', 'shared', 'shop'].map(
          (namespace) => `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: ${namespace}}`,
        ),
      ].join('\n---\n'),
    );
    const all = orderedPlugins.map((p) => p.name);

    const admission = await loadAdmissionConfiguration(join(fixtures, 'namespace-plugins/admission.yaml'), all, all);
    const metrics = createMetrics({ defaultMetrics: false });
    const chain = buildChain({
      enabled: orderedPlugins,
      modes: {},
      backend: createLocalBackend(state, silentLogger),
      metrics,
      // ImagePolicyWebhook's backend refuses at once; with defaultAllow every pod is admitted, failed open.
      configuration: {
        for: (name) =>
          name === 'ImagePolicyWebhook'
            ? { source: 'test', documents: [{ imagePolicy: { kubeConfigFile: unreachableImageReviewBackend, defaultAllow: true } }] }
            : admission.configurations.for(name),
      },
    });
    expect(chain.entries.map((e) => e.plugin.name)).toEqual(all);
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      metricsPort: 0,
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      chain,
      logger: silentLogger,
      metrics,
      requestTimeoutMs: 5000,
      backendNotReady: () => [],
      shutdownDelayMs: 0,
      drainTimeoutMs: 2000,
    });
    agent = new Agent({ keepAlive: true, maxSockets: 16, ca: certs.caCert });
  });
  afterAll(async () => {
    agent?.destroy();
    await server?.shutdown();
  });

  it('answers every one with an AdmissionReview for its uid or a 4xx with a reason', { timeout: 60_000 + cases * 10 }, async () => {
    const next = seededRandom(seed);
    const originals = seeds();
    const problems: string[] = [];
    const outcomes = new Map<string, number>();
    const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    const check = (index: number, body: string, sent: unknown, res: TestResponse) => {
      const fail = (why: string) => problems.length < 20 && problems.push(`case ${index}: ${why}; sent ${body.slice(0, 300)}`);
      if (res.text.includes('\n    at ')) fail('a stack trace in the answer');
      if (res.status === 200) {
        const review = res.json<{
          response?: { uid?: unknown; allowed?: unknown; patch?: string; status?: { message?: string; reason?: string } };
        }>();
        const response = review.response;
        const uid = (sent as { request?: { uid?: unknown } } | undefined)?.request?.uid;
        if (typeof response?.allowed !== 'boolean') return fail('a 200 without response.allowed');
        if (response.uid !== uid) fail(`uid ${JSON.stringify(response.uid)} for ${JSON.stringify(uid)}`);
        // A plugin must never crash on what it is given: its own bugs surface as "plugin X failed".
        if (/^Internal error occurred: plugin \S+ failed/.test(response.status?.message ?? ''))
          fail(`a plugin crashed: ${response.status?.message}`);
        if (response.patch !== undefined) {
          const object = (sent as { request: { object: unknown } }).request.object;
          try {
            fastJsonPatch.applyPatch(structuredClone(object), JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')), true);
          } catch (error) {
            fail(`a patch that does not apply: ${(error as Error).message}`);
          }
        }
        count(response.allowed ? '200 allowed' : `200 denied ${response.status?.reason ?? 'Unknown'}`);
      } else if (res.status === 400 || res.status === 413) {
        const status = res.json<{ kind?: string; message?: unknown }>();
        if (status.kind !== 'Status' || typeof status.message !== 'string' || status.message === '')
          fail(`a ${res.status} without a Status message`);
        count(String(res.status));
      } else {
        fail(`HTTP ${res.status}: ${res.text.slice(0, 200)}`);
      }
    };

    // Sixteen at a time: a case that makes the ServiceAccount plugin wait for a missing default
    // account (up to two seconds) does not hold up the rest. Cases are made in order, so the seed
    // still fixes every body.
    const made = Array.from({ length: cases }, (_, index) => {
      const review = structuredClone(originals[Math.floor(next() * originals.length)]);
      mutate(review, next);
      let body = JSON.stringify(review);
      if (next() < 0.15) body = garble(body, next);
      const path = next() < 0.5 ? '/mutate' : '/validate';
      return { index, body, path };
    });
    let cursor = 0;
    const worker = async () => {
      while (cursor < made.length) {
        const { index, body, path } = made[cursor++]!;
        let sent: unknown;
        try {
          sent = JSON.parse(body);
        } catch {
          sent = undefined;
        }
        const res = await Promise.race([
          post(`https://127.0.0.1:${server.port}${path}`, body, { ca: certs.caCert, agent }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref()),
        ]).catch((error: Error) => ({ status: 0, text: error.message, headers: {}, json: () => ({}) }) as TestResponse);
        check(index, body, sent, res);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(problems).toEqual([]);
    // The cases reached the plugins (allowed and denied both), not only the decoder.
    expect(outcomes.get('200 allowed') ?? 0).toBeGreaterThan(cases / 20);
    expect([...outcomes.keys()].some((key) => key.startsWith('200 denied'))).toBe(true);
    expect(outcomes.get('400') ?? 0).toBeGreaterThan(0);
  });
});
