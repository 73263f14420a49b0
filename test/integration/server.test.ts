// The webhook over real HTTPS: the AdmissionReview contract, every bad-input class, health,
// certificate reload without dropping connections, and draining on shutdown.

import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { type ConnectionOptions, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { forbidden } from '../../src/admission/errors.ts';
import { instrumentPlugin } from '../../src/admission/instrument.ts';
import { createExplainer } from '../../src/explain/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { definition as alwaysPullImages } from '../../src/plugins/alwayspullimages/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { jsonShape, requestWeight } from '../../src/server/json-weight.ts';
import { type RunningServer, startServer } from '../../src/server/server.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { type CertFiles, writeTestCertificates } from '../support/certs.ts';
import { get, post } from '../support/https-client.ts';
import { capturedLog } from '../support/log.ts';
import { recordingPlugin } from '../support/recording-plugin.ts';
import { podReview } from '../support/reviews.ts';

const ports = { logger: silentLogger, clock: systemClock, random: systemRandom };
/** Longer than vitest's test timeout (vitest.config.ts): a server with it never falls back to it within a test. */
const requestTimeoutBeyondTheTest = 60_000;

async function start(
  certs: CertFiles,
  extra: Parameters<typeof startServer>[0]['chain']['entries'] = [],
  overrides: Partial<Parameters<typeof startServer>[0]> = {},
) {
  const metrics = createMetrics({ defaultMetrics: false });
  const entries = [{ plugin: alwaysPullImages.create(ports), mode: 'enforce' as const }, ...extra];
  const chain = new AdmissionChain(
    entries.map((e) => ({ ...e, plugin: instrumentPlugin(e.plugin, metrics) })),
    { explainer: createExplainer() },
  );
  return startServer({
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
    certFile: certs.certFile,
    keyFile: certs.keyFile,
    chain,
    logger: silentLogger,
    metrics,
    requestTimeoutMs: 2000,
    backendNotReady: () => [],
    shutdownDelayMs: 0,
    drainTimeoutMs: 5000,
    certificatePollIntervalMs: 200,
    ...overrides,
  });
}

/** A promise and the function that settles it, for holding a plugin until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A validating-only plugin, enforced, that runs `check`. */
function validating(name: string, check: NonNullable<Parameters<typeof recordingPlugin>[0]['check']>) {
  return { mode: 'enforce' as const, plugin: recordingPlugin({ name, log: [], mutating: false, check }) };
}

describe('webhook server', () => {
  let certs: CertFiles;
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    certs = await writeTestCertificates();
    server = await start(certs, [
      validating('Crashy', (a) => {
        if (a.name === 'crash') throw new TypeError("Cannot read properties of undefined (reading 'x')");
      }),
    ]);
    base = `https://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.shutdown());

  it('mutates with one base64 JSONPatch and echoes the uid', async () => {
    const res = await post(`${base}/mutate`, JSON.stringify(podReview({ uid: 'abc-123' })), { ca: certs.caCert });
    expect(res.status).toBe(200);
    const review = res.json();
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'abc-123', allowed: true, patchType: 'JSONPatch' },
    });
    expect(JSON.parse(Buffer.from(review.response.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' },
    ]);
  });

  it('sends no patch when the pod already pulls always', async () => {
    const res = await post(`${base}/mutate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), { ca: certs.caCert });
    expect(res.json().response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('answers v1beta1 in v1beta1', async () => {
    const res = await post(
      `${base}/validate`,
      JSON.stringify(podReview({ apiVersion: 'admission.k8s.io/v1beta1', pullPolicy: 'Always' })),
      { ca: certs.caCert },
    );
    expect(res.json()).toEqual({
      apiVersion: 'admission.k8s.io/v1beta1',
      kind: 'AdmissionReview',
      response: { uid: 'uid-1', allowed: true },
    });
  });

  it("denies with upstream's message", async () => {
    const res = await post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'IfNotPresent' })), { ca: certs.caCert });
    expect(res.json().response).toMatchObject({
      uid: 'uid-1',
      allowed: false,
      status: {
        message:
          'pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"',
      },
    });
  });

  it('turns a plugin crash into an AdmissionReview with the uid and code 500', async () => {
    const res = await post(`${base}/validate`, JSON.stringify(podReview({ uid: 'u-crash', name: 'crash', pullPolicy: 'Always' })), {
      ca: certs.caCert,
    });
    expect(res.status).toBe(200);
    expect(res.json().response).toMatchObject({
      uid: 'u-crash',
      allowed: false,
      status: {
        code: 500,
        reason: 'InternalError',
        message: "Internal error occurred: plugin Crashy failed: Cannot read properties of undefined (reading 'x')",
      },
    });
    // and the server is still there
    const after = await post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), { ca: certs.caCert });
    expect(after.json().response.allowed).toBe(true);
  });

  const nestedPod = (uid: string, depth: number, where: 'beside the spec' | 'in a container' | 'as a pull policy') => {
    const nested = `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
    const text = JSON.stringify(podReview({ uid }));
    // Beside the spec, and inside a container beside the one field AlwaysPullImages sets, nothing
    // copies or diffs it; as that field's own value the mutating plugins' copy does.
    if (where === 'beside the spec') return text.replace('"spec":{', `"deep":${nested},"spec":{`);
    if (where === 'in a container') return text.replace('"image":"nginx:1.27"', `"image":"nginx:1.27","deep":${nested}`);
    return text.replace('"image":"nginx:1.27"', `"image":"nginx:1.27","imagePullPolicy":${nested}`);
  };

  it("refuses nesting deeper than kube-apiserver could have sent (Go's 10,000 levels) before parsing it", async () => {
    const res = await post(`${base}/mutate`, nestedPod('u-deep', 20_000, 'beside the spec'), { ca: certs.caCert });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ kind: 'Status', code: 400, message: 'request body is nested deeper than 10000 levels' });
  });

  // Beside the spec, or beside a container's pull policy, it is only parsed and shared, and the pod
  // is patched as usual. As the pull policy itself, the mutating plugins' copy recurses once per
  // level, and Node's default stack holds about 4,800 such levels: the copy overflows, and the answer
  // is a denial that says why, never a dropped request.
  it.each([
    ['beside the spec', { allowed: true, patchType: 'JSONPatch' }],
    ['in a container', { allowed: true, patchType: 'JSONPatch' }],
    [
      'as a pull policy',
      { allowed: false, status: { code: 500, message: 'Internal error occurred: object is nested too deeply to process' } },
    ],
  ] as const)('answers an object nested 9,990 levels deep %s, echoing the uid', async (where, expected) => {
    const res = await post(`${base}/mutate`, nestedPod('u-deep', 9_990, where), { ca: certs.caCert });
    expect(res.status).toBe(200);
    expect(res.json().response).toMatchObject({ uid: 'u-deep', ...expected });
  });

  const review = () => podReview();
  /** admission_chain_bad_requests_total for one webhook and reason, 0 before its first. */
  const refusalCount = async (webhook: string, reason: string) => {
    const text = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
    const line = text.split('\n').find((l) => l.startsWith(`admission_chain_bad_requests_total{webhook="${webhook}",reason="${reason}"} `));
    return line === undefined ? 0 : Number(line.split(' ')[1]);
  };
  it.each<[string, string, () => string | Buffer, string | undefined, number, string, string]>([
    ['non-JSON', '/validate', () => '{"apiVersion":', undefined, 400, 'request body is not valid JSON', 'not_json'],
    [
      'wrong kind',
      '/validate',
      () => JSON.stringify({ ...review(), kind: 'Pod' }),
      undefined,
      400,
      'invalid AdmissionReview: expected kind AdmissionReview, got "Pod"',
      'bad_review',
    ],
    [
      'wrong apiVersion',
      '/mutate',
      () => JSON.stringify({ ...review(), apiVersion: 'v1' }),
      undefined,
      400,
      'invalid AdmissionReview: unsupported apiVersion "v1"',
      'bad_review',
    ],
    [
      'missing request',
      '/mutate',
      () => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
      undefined,
      400,
      'invalid AdmissionReview: AdmissionReview has no request',
      'bad_review',
    ],
    [
      'missing uid',
      '/validate',
      () => JSON.stringify({ ...review(), request: { ...review().request, uid: undefined } }),
      undefined,
      400,
      'invalid AdmissionReview: request.uid is missing',
      'bad_review',
    ],
    [
      'wrong content type',
      '/validate',
      () => JSON.stringify(review()),
      'text/plain',
      400,
      'content type must be application/json, got "text/plain"',
      'content_type',
    ],
    [
      'a body over 7 MiB',
      '/mutate',
      () => Buffer.alloc(7 * 1024 * 1024 + 1, 0x20),
      undefined,
      413,
      'request body is larger than 7340032 bytes',
      'too_large',
    ],
  ])('refuses %s with a one-line reason, counted once under its label', async (_name, path, body, contentType, status, message, label) => {
    const counted = await refusalCount(path.slice(1), label);
    const res = await post(`${base}${path}`, body(), { ca: certs.caCert, ...(contentType ? { contentType } : {}) });
    expect(res.status).toBe(status);
    const parsed = res.json();
    expect(parsed).toMatchObject({ kind: 'Status', code: status });
    expect(parsed.message).toContain(message);
    expect(parsed.message).not.toContain('\n');
    await expect.poll(() => refusalCount(path.slice(1), label)).toBe(counted + 1);
  });

  it("routes by path alone: kube-apiserver's ?timeout= query and a trailing slash reach the webhook", async () => {
    for (const path of ['/validate?timeout=10s', '/mutate/?timeout=5s', '/validate/']) {
      const res = await post(`${base}${path}`, JSON.stringify(podReview({ uid: `u-${path}`, pullPolicy: 'Always' })), { ca: certs.caCert });
      expect(res.status, path).toBe(200);
      expect(res.json().response, path).toMatchObject({ uid: `u-${path}`, allowed: true });
    }
  });

  it.each([
    ['GET', '/mutate'],
    ['PUT', '/validate'],
    ['POST', '/'],
    ['POST', '/mutate/extra'],
    ['POST', '/MUTATE'],
    ['POST', '/mutate//'],
    ['OPTIONS', '/mutate'],
  ])('answers %s %s with 404 and a Status naming the two endpoints', async (method, path) => {
    const res = await post(`${base}${path}`, JSON.stringify(podReview()), { ca: certs.caCert, method });
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'not found: the webhook serves POST /mutate and POST /validate',
    });
  });

  it('counts a request for neither webhook under webhook "none"', async () => {
    const counted = await refusalCount('none', 'not_found');
    expect((await post(`${base}/nowhere`, '{}', { ca: certs.caCert })).status).toBe(404);
    await expect.poll(() => refusalCount('none', 'not_found')).toBe(counted + 1);
  });

  it('refuses a compressed body (kube-apiserver sends none) without reading it', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await post(`${base}/mutate`, gzipSync(JSON.stringify(podReview())), {
      ca: certs.caCert,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      code: 400,
      message: 'cannot read request body: unsupported content encoding "gzip"',
    });
    const identity = await post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
      ca: certs.caCert,
      headers: { 'content-encoding': 'identity' },
    });
    expect(identity.json().response.allowed).toBe(true);
  });

  it('survives a caller that sends less than it declared and hangs up, and keeps serving', async () => {
    await new Promise<void>((resolve) => {
      const req = httpsRequest(`${base}/validate`, {
        method: 'POST',
        ca: certs.caCert,
        headers: { 'content-type': 'application/json', 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write('{"apiVersion":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const res = await post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), { ca: certs.caCert });
    expect(res.json().response.allowed).toBe(true);
    await expect
      .poll(async () => (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text)
      .toContain('admission_chain_bad_requests_total{webhook="validate",reason="unreadable"} 1');
  });

  it('accepts a body just under the limit', async () => {
    const big = podReview({ pullPolicy: 'Always' });
    (big.request.object.metadata as Record<string, unknown>).annotations = { blob: 'x'.repeat(6 * 1024 * 1024) };
    const res = await post(`${base}/validate`, JSON.stringify(big), { ca: certs.caCert });
    expect(res.status).toBe(200);
    expect(res.json().response.allowed).toBe(true);
  });

  it('serves health and metrics over plain HTTP', async () => {
    const plain = `http://127.0.0.1:${server.metricsPort}`;
    expect((await get(`${plain}/livez`)).status).toBe(200);
    expect((await get(`${plain}/healthz`)).status).toBe(200);
    expect((await get(`${plain}/readyz`)).text).toBe('ok');
    const metrics = await get(`${plain}/metrics`);
    expect(metrics.text).toMatch(/admission_chain_requests_total\{webhook="mutate",operation="CREATE",allowed="true",code="200"\} \d+/);
    expect(metrics.text).toMatch(
      /admission_chain_controller_admission_duration_seconds_count\{name="AlwaysPullImages",type="validate",operation="CREATE",rejected="true"\} [1-9]/,
    );
    expect(metrics.text).toMatch(/admission_chain_tls_certificate_expiry_timestamp_seconds \d+/);
    // The plugin crash above is an internal error; AlwaysPullImages' 500-coded denial is not.
    expect(metrics.text).toContain('admission_chain_internal_errors_total{webhook="validate"} 1');
  });
});

describe('certificate reload', () => {
  it('serves a rotated certificate without dropping an open connection', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs);
    const base = `https://127.0.0.1:${server.port}`;
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: certs.caCert });
      const body = JSON.stringify(podReview({ pullPolicy: 'Always' }));
      const first = await post(`${base}/validate`, body, { ca: certs.caCert, agent });
      expect(first.status).toBe(200);

      // Rotate as a Secret volume update does: write elsewhere, then swap in atomically.
      const next = await generateCertificates({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
      await writeFile(join(certs.dir, 'tls.crt.new'), next.cert);
      await writeFile(join(certs.dir, 'tls.key.new'), next.key);
      await rename(join(certs.dir, 'tls.key.new'), certs.keyFile);
      await rename(join(certs.dir, 'tls.crt.new'), certs.certFile);

      await expect
        .poll(
          async () => {
            try {
              return (await post(`${base}/validate`, body, { ca: next.caCert })).status;
            } catch {
              return 0;
            }
          },
          { timeout: 5000, interval: 100 },
        )
        .toBe(200);

      // The connection opened before the rotation still works (it was made with the old CA).
      const again = await post(`${base}/validate`, body, { ca: certs.caCert, agent });
      expect(again.status).toBe(200);
      // New connections no longer present the old certificate.
      await expect(post(`${base}/validate`, body, { ca: certs.caCert })).rejects.toThrow();
      agent.destroy();
    } finally {
      await server.shutdown();
    }
  });

  it('follows a Secret volume update (an atomic ..data symlink swap)', async () => {
    // The kubelet writes a new timestamped directory, then renames a fresh ..data symlink over the
    // old one; tls.crt and tls.key are symlinks through ..data.
    const certs = await writeTestCertificates();
    const volume = join(certs.dir, 'volume');
    const first = join(volume, '..2026_01_01');
    await mkdir(first, { recursive: true });
    await writeFile(join(first, 'tls.crt'), certs.cert);
    await writeFile(join(first, 'tls.key'), certs.key);
    await symlink('..2026_01_01', join(volume, '..data'));
    await symlink('..data/tls.crt', join(volume, 'tls.crt'));
    await symlink('..data/tls.key', join(volume, 'tls.key'));
    const server = await start({ ...certs, certFile: join(volume, 'tls.crt'), keyFile: join(volume, 'tls.key') });
    try {
      const body = JSON.stringify(podReview({ pullPolicy: 'Always' }));
      expect((await post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert })).status).toBe(200);
      const next = await generateCertificates({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
      const second = join(volume, '..2026_02_01');
      await mkdir(second);
      await writeFile(join(second, 'tls.crt'), next.cert);
      await writeFile(join(second, 'tls.key'), next.key);
      await symlink('..2026_02_01', join(volume, '..data_tmp'));
      await rename(join(volume, '..data_tmp'), join(volume, '..data'));
      await expect
        .poll(
          async () => {
            try {
              return (await post(`https://127.0.0.1:${server.port}/validate`, body, { ca: next.caCert })).status;
            } catch {
              return 0;
            }
          },
          { timeout: 5000, interval: 100 },
        )
        .toBe(200);
    } finally {
      await server.shutdown();
    }
  });

  it('keeps the old certificate when the new files are not a pair', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs);
    try {
      const other = await generateCertificates({ commonName: 'localhost' });
      await writeFile(certs.keyFile, other.key); // key no longer matches the certificate
      await new Promise((r) => setTimeout(r, 600));
      const res = await post(`https://127.0.0.1:${server.port}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
        ca: certs.caCert,
      });
      expect(res.status).toBe(200);
    } finally {
      await server.shutdown();
    }
  });
});

describe('drain on shutdown', () => {
  it('tells keep-alive clients to close while draining, so shutdown needs no forced close', async () => {
    const certs = await writeTestCertificates();
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (a: unknown, b?: string) => void warnings.push(typeof a === 'string' ? a : (b ?? '')),
      child: () => logger,
    };
    const server = await start(certs, [], { shutdownDelayMs: 300, drainTimeoutMs: 5000, logger });
    const base = `https://127.0.0.1:${server.port}`;
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: certs.caCert });
    const body = JSON.stringify(podReview({ pullPolicy: 'Always' }));
    const before = await post(`${base}/validate`, body, { ca: certs.caCert, agent });
    expect(before.headers.connection).toBe('keep-alive');
    const stopping = server.shutdown();
    const during = await post(`${base}/validate`, body, { ca: certs.caCert, agent });
    expect(during.status).toBe(200);
    expect(during.headers.connection).toBe('close');
    await stopping;
    expect(warnings).not.toContain('drain timeout reached; closing remaining connections');
    agent.destroy();
  });

  it('goes unready, finishes in-flight requests, then stops accepting', async () => {
    const certs = await writeTestCertificates();
    const started = gate();
    const slow = validating('Slow', async () => {
      started.open();
      await new Promise((r) => setTimeout(r, 400));
    });
    // A drain timeout longer than the test's own: the in-flight request's connection must close by
    // itself, since the answer leaves after shutdown began.
    const server = await start(certs, [slow], { shutdownDelayMs: 200, drainTimeoutMs: 60_000 });
    const base = `https://127.0.0.1:${server.port}`;
    const agent = new Agent({ keepAlive: true, ca: certs.caCert });
    const inFlight = post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), { ca: certs.caCert, agent });
    await started.opened;
    const stopping = server.shutdown();
    const ready = await get(`http://127.0.0.1:${server.metricsPort}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.text).toContain('shutting down');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json().response.allowed).toBe(true);
    expect(res.headers.connection).toBe('close');
    await stopping;
    await expect(post(`${base}/validate`, '{}', { ca: certs.caCert })).rejects.toThrow();
    agent.destroy();
  }, 10_000);
});

describe('request logs', () => {
  async function linesAt(level: 'info' | 'debug'): Promise<Array<Record<string, unknown>>> {
    const certs = await writeTestCertificates();
    const log = capturedLog();
    const warnOnly = recordingPlugin({
      name: 'WarnOnly',
      log: [],
      mutating: false,
      check: (a) => {
        if (a.name === 'would-be-denied') throw forbidden(a, 'not on my watch');
      },
    });
    const server = await start(certs, [{ plugin: warnOnly, mode: 'warn' }], { logger: createLogger(level, log.destination) });
    try {
      const base = `https://127.0.0.1:${server.port}`;
      const allowed = await post(`${base}/mutate`, JSON.stringify(podReview({ uid: 'uid-allowed' })), { ca: certs.caCert });
      expect(allowed.json().response.allowed).toBe(true);
      const denied = await post(`${base}/validate`, JSON.stringify(podReview({ uid: 'uid-denied', pullPolicy: 'IfNotPresent' })), {
        ca: certs.caCert,
      });
      expect(denied.json().response.allowed).toBe(false);
      const warned = await post(
        `${base}/validate`,
        JSON.stringify(podReview({ uid: 'uid-warned', pullPolicy: 'Always', name: 'would-be-denied' })),
        { ca: certs.caCert },
      );
      expect(warned.json().response.allowed).toBe(true);
    } finally {
      await server.shutdown();
    }
    return log.lines();
  }

  it('writes denials at info and allowed requests only at debug, with who asked and never the object', async () => {
    const info = await linesAt('info');
    expect(info.find((l) => l.uid === 'uid-allowed')).toBeUndefined();
    const denied = info.find((l) => l.uid === 'uid-denied');
    expect(denied).toMatchObject({
      level: 30,
      msg: 'admission denied',
      webhook: 'validate',
      kind: 'Pod',
      operation: 'CREATE',
      decision: 'denied',
      rejectedBy: 'AlwaysPullImages',
    });
    expect(typeof denied?.durationMs).toBe('number');
    // The denial's explanation rides in the same line: the field without Always, and the remedy.
    expect(denied?.explanation).toMatch(
      /^# spec.containers\[0\].imagePullPolicy is "IfNotPresent", not "Always": every container needs imagePullPolicy: Always/,
    );
    // Admitted only because the plugin merely warns: what a warn-mode rollout watches the logs for.
    expect(info.find((l) => l.uid === 'uid-warned')).toMatchObject({
      level: 30,
      msg: 'admission allowed; a rejection was not enforced',
      decision: 'allowed',
      notEnforced: ['WarnOnly:warn'],
    });

    const debug = await linesAt('debug');
    expect(debug.find((l) => l.uid === 'uid-allowed')).toMatchObject({
      level: 20,
      msg: 'admission allowed',
      webhook: 'mutate',
      decision: 'allowed',
      patched: true,
    });
    expect(debug.find((l) => l.uid === 'uid-denied')).toMatchObject({ level: 30, msg: 'admission denied' });
    for (const line of debug) expect(JSON.stringify(line)).not.toContain('nginx');
  });

  it('cuts a long denial message in the log line, and answers it whole', async () => {
    const certs = await writeTestCertificates();
    const log = capturedLog();
    const long = 'x'.repeat(10_000);
    const server = await start(
      certs,
      [
        validating('Wordy', (a) => {
          throw forbidden(a, long);
        }),
      ],
      { logger: createLogger('info', log.destination) },
    );
    try {
      const res = await post(
        `https://127.0.0.1:${server.port}/validate`,
        JSON.stringify(podReview({ uid: 'uid-long', pullPolicy: 'Always' })),
        { ca: certs.caCert },
      );
      const message = res.json().response.status.message as string;
      expect(message).toBe(`pods "web" is forbidden: ${long}`);
      const reason = log.lines().find((l) => l.uid === 'uid-long')?.reason as string;
      expect(reason).toBe(`${message.slice(0, 2048)}… (${message.length} characters in all)`);
    } finally {
      await server.shutdown();
    }
  });
});

describe('in-flight gauge', () => {
  it('counts a request while it is being handled, per webhook, and drops back when it is answered', async () => {
    const certs = await writeTestCertificates();
    const held = gate();
    const inside = gate();
    const server = await start(certs, [
      validating('Holding', async () => {
        inside.open();
        await held.opened;
      }),
    ]);
    try {
      const gauge = async (webhook: string) => {
        const text = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
        return Number(new RegExp(`^admission_chain_requests_in_flight\\{webhook="${webhook}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      };
      expect(await gauge('validate')).toBe(0);
      const answer = post(`https://127.0.0.1:${server.port}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
        ca: certs.caCert,
      });
      await inside.opened;
      expect(await gauge('validate')).toBe(1);
      expect(await gauge('mutate')).toBe(0);
      held.open();
      expect((await answer).status).toBe(200);
      expect(await gauge('validate')).toBe(0);
    } finally {
      held.open();
      await server.shutdown();
    }
  });
});

describe('answers on a busy loop and an idle one', () => {
  it.each([
    ['busy (held for the check phase)', true],
    ['idle (written at once)', false],
  ])('answers every review alike when the loop is %s, asking once per review', async (_name, busy) => {
    const certs = await writeTestCertificates();
    let asked = 0;
    const server = await start(certs, [], {
      loopLoad: {
        busy: () => {
          asked += 1;
          return busy;
        },
      },
    });
    try {
      const uids = Array.from({ length: 20 }, (_, i) => `uid-${i}`);
      const answers = await Promise.all(
        uids.map((uid, i) =>
          post(`https://127.0.0.1:${server.port}/mutate`, JSON.stringify(podReview({ uid, ...(i % 2 ? { pullPolicy: 'Always' } : {}) })), {
            ca: certs.caCert,
          }),
        ),
      );
      expect(answers.map((a) => a.json().response.uid)).toEqual(uids);
      expect(answers.map((a) => a.json().response.patchType)).toEqual(uids.map((_, i) => (i % 2 ? undefined : 'JSONPatch')));
      expect(asked).toBe(20);
      // A refusal is answered before admission and never asks.
      expect((await post(`https://127.0.0.1:${server.port}/mutate`, 'not json', { ca: certs.caCert })).status).toBe(400);
      expect(asked).toBe(20);
    } finally {
      await server.shutdown();
    }
  });
});

describe('a caller that goes away', () => {
  it('gets its request canceled; the answer is dropped, counted as an internal error, and the server keeps serving', async () => {
    const certs = await writeTestCertificates();
    const inside = gate();
    const log = capturedLog();
    const slow = validating('Slow', async (a, context) => {
      if (a.name !== 'slow') return;
      inside.open();
      await new Promise<void>((resolve) => context.deadline.signal.addEventListener('abort', () => resolve(), { once: true }));
    });
    const server = await start(certs, [slow], { logger: createLogger('info', log.destination) });
    try {
      const base = `https://127.0.0.1:${server.port}`;
      const request = httpsRequest(`${base}/validate`, {
        method: 'POST',
        ca: certs.caCert,
        headers: { 'content-type': 'application/json' },
      });
      request.on('error', () => {});
      request.end(JSON.stringify(podReview({ uid: 'uid-gone', pullPolicy: 'Always', name: 'slow' })));
      await inside.opened;
      request.destroy();
      await expect
        .poll(() => log.lines().find((l) => l.uid === 'uid-gone'))
        .toMatchObject({
          msg: 'admission failed',
          reason: 'Internal error occurred: admission request canceled: client closed the connection',
        });
      const next = await post(`${base}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), { ca: certs.caCert });
      expect(next.json().response.allowed).toBe(true);
    } finally {
      await server.shutdown();
    }
  });
});

describe('limits on what callers may hold', () => {
  const metric = async (server: RunningServer, name: string) => {
    const text = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
    return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
  };
  /** A pod review with `count` empty objects beside its spec: a small body, a large heap. */
  const heavy = (count: number) =>
    JSON.stringify(podReview({ pullPolicy: 'Always' })).replace('"spec":{', `"junk":[${'{},'.repeat(count)}{}],"spec":{`);

  it('refuses a body whose parsed heap could not fit even alone, before parsing it', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs, [], { maxBodyBytes: 1024 * 1024, maxInFlightBytes: 4 * 1024 * 1024 });
    try {
      // 600 KB of "{}," is 200,000 objects: about 13 MiB once parsed.
      const res = await post(`https://127.0.0.1:${server.port}/validate`, heavy(200_000), { ca: certs.caCert });
      expect(res.status).toBe(413);
      expect(res.json().message).toMatch(
        /^request body would take about \d+\.\d MiB to handle, more than the 4\.0 MiB all requests in flight may hold$/,
      );
      expect(await metric(server, 'admission_chain_bad_requests_total\\{webhook="validate",reason="too_heavy"\\}')).toBe(1);
      // The same bytes as one string weigh what they are: handled.
      const plain = JSON.stringify(podReview({ pullPolicy: 'Always' })).replace('"spec":{', `"note":"${'x'.repeat(600_000)}","spec":{`);
      expect((await post(`https://127.0.0.1:${server.port}/validate`, plain, { ca: certs.caCert })).json().response.allowed).toBe(true);
    } finally {
      await server.shutdown();
    }
  });

  it('lets a request that does not fit wait for room, in order, and answers it', async () => {
    const certs = await writeTestCertificates();
    const held = gate();
    const inside = gate();
    let calls = 0;
    const server = await start(
      certs,
      [
        validating('HoldsTheFirst', async () => {
          if (calls++ > 0) return;
          inside.open();
          await held.opened;
        }),
      ],
      // Room for one 3 MiB body's work at a time (and reading for two).
      { maxBodyBytes: 3 * 1024 * 1024, maxInFlightBytes: 12 * 1024 * 1024, requestTimeoutMs: 5000 },
    );
    try {
      const body = heavy(100_000); // about 8 MiB of heap each: one at a time
      const first = post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      await inside.opened;
      const second = post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      const third = post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      await new Promise((r) => setTimeout(r, 200));
      expect(await metric(server, 'admission_chain_requests_waiting')).toBeGreaterThanOrEqual(1);
      expect(calls).toBe(1);
      held.open();
      const answers = await Promise.all([first, second, third]);
      expect(answers.map((a) => [a.status, a.json().response?.allowed])).toEqual([
        [200, true],
        [200, true],
        [200, true],
      ]);
      expect(await metric(server, 'admission_chain_requests_waiting')).toBe(0);
      expect(await metric(server, 'admission_chain_in_flight_request_bytes')).toBe(0);
    } finally {
      held.open();
      await server.shutdown();
    }
  });

  it("holds a heavy request's share after its answer until the garbage collector has run, and runs it when the next one needs the room", async () => {
    const certs = await writeTestCertificates();
    const events: string[] = [];
    const body = heavy(150_000);
    const weight = requestWeight(jsonShape(Buffer.from(body)), 'validate');
    const server = await start(certs, [validating('Records', () => void events.push('handled'))], {
      maxBodyBytes: 3 * 1024 * 1024,
      // Room for one such request's heap, not two: what the first left must be collected before the second starts.
      maxInFlightBytes: Math.ceil(1.5 * weight),
      collectGarbage: () => void events.push('collected'),
    });
    try {
      const first = await post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      expect(first.json().response.allowed).toBe(true);
      // Answered, no longer in flight, but its heap is not collected yet: nobody needed the room.
      expect(await metric(server, 'admission_chain_in_flight_request_bytes')).toBe(0);
      expect(events).toEqual(['handled']);
      const second = await post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      expect(second.json().response.allowed).toBe(true);
      expect(events).toEqual(['handled', 'collected', 'handled']);
      // A light request never waits for a collection, and leaves nothing to collect.
      const light = await post(`https://127.0.0.1:${server.port}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
        ca: certs.caCert,
      });
      expect(light.json().response.allowed).toBe(true);
      expect(events).toEqual(['handled', 'collected', 'handled', 'handled']);
    } finally {
      await server.shutdown();
    }
  });

  it('answers 503 when no room came before the deadline (the caller applies its failurePolicy)', async () => {
    const certs = await writeTestCertificates();
    const held = gate();
    const inside = gate();
    const server = await start(
      certs,
      [
        validating('Holds', async () => {
          inside.open();
          await held.opened;
        }),
      ],
      // --request-timeout beyond the test's own timeout: an answer at all means the caller's deadline ended the wait.
      { maxBodyBytes: 3 * 1024 * 1024, maxInFlightBytes: 12 * 1024 * 1024, requestTimeoutMs: requestTimeoutBeyondTheTest },
    );
    try {
      const body = heavy(100_000);
      const first = post(`https://127.0.0.1:${server.port}/validate`, body, { ca: certs.caCert });
      await inside.opened;
      // kube-apiserver says how long it waits (the webhook's timeoutSeconds); this caller waits 300 ms.
      const waited = await post(`https://127.0.0.1:${server.port}/validate?timeout=300ms`, body, { ca: certs.caCert });
      expect(waited.status).toBe(503);
      expect(waited.headers['retry-after']).toBe('1');
      expect(waited.json()).toMatchObject({
        kind: 'Status',
        code: 503,
        reason: 'ServiceUnavailable',
        message: 'admission-chain is at its in-flight limit: no room for this request before its deadline',
      });
      expect(await metric(server, 'admission_chain_unavailable_requests_total\\{webhook="validate",reason="no_room"\\}')).toBe(1);
      held.open();
      expect((await first).json().response.allowed).toBe(true);
    } finally {
      held.open();
      await server.shutdown();
    }
  });

  it('answers within the timeout kube-apiserver asks for, when it is shorter than --request-timeout', async () => {
    const certs = await writeTestCertificates();
    // --request-timeout beyond the test's own timeout: an answer at all means the caller's deadline ended the wait.
    const server = await start(certs, [validating('Hangs', () => new Promise<void>(() => {}))], {
      requestTimeoutMs: requestTimeoutBeyondTheTest,
    });
    try {
      const res = await post(`https://127.0.0.1:${server.port}/validate?timeout=1s`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
        ca: certs.caCert,
      });
      expect(res.json().response.status.message).toBe('Internal error occurred: admission request deadline exceeded');
    } finally {
      await server.shutdown();
    }
  });

  it('stops reading a body that has not arrived by the deadline, and lets the next one in', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs, [], { maxBodyBytes: 1024 * 1024, maxInFlightBytes: 4 * 1024 * 1024, requestTimeoutMs: 300 });
    try {
      // Two callers declare the largest body and send a byte of it: the reading budget (2 MiB) is full.
      const stalled = [0, 1].map(
        () =>
          new Promise<string>((resolve) => {
            const req = httpsRequest(`https://127.0.0.1:${server.port}/validate`, {
              method: 'POST',
              ca: certs.caCert,
              headers: { 'content-type': 'application/json', 'content-length': String(1024 * 1024) },
            });
            req.on('error', () => resolve('closed'));
            req.on('response', (res) => resolve(String(res.statusCode)));
            req.write('{');
          }),
      );
      expect(await Promise.all(stalled)).toEqual(['closed', 'closed']);
      const res = await post(`https://127.0.0.1:${server.port}/validate`, JSON.stringify(podReview({ pullPolicy: 'Always' })), {
        ca: certs.caCert,
      });
      expect(res.json().response.allowed).toBe(true);
    } finally {
      await server.shutdown();
    }
  });

  // The test's own timeout is below the server's default headers timeout (10 s), so a close at all
  // means the 300 ms override closed it.
  it('closes a connection that sends no request within the headers timeout', { timeout: 8_000 }, async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs, [], { headersTimeoutMs: 300 });
    try {
      const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: certs.caCert, servername: 'localhost' });
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve);
        socket.once('error', reject);
      });
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    } finally {
      await server.shutdown();
    }
  });

  it('closes connections beyond --max-connections as they arrive, and counts them', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs, [], { maxConnections: 2 });
    const sockets: TLSSocket[] = [];
    try {
      const open = () =>
        new Promise<'open' | 'closed'>((resolve) => {
          const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: certs.caCert, servername: 'localhost' });
          sockets.push(socket);
          socket.once('secureConnect', () => resolve('open'));
          socket.once('error', () => resolve('closed'));
          socket.once('close', () => resolve('closed'));
        });
      expect([await open(), await open(), await open()]).toEqual(['open', 'open', 'closed']);
      expect(await metric(server, 'admission_chain_dropped_connections_total')).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.shutdown();
    }
  });

  it('speaks TLS 1.3, and TLS 1.2 only with ECDHE and AEAD ciphers', async () => {
    const certs = await writeTestCertificates();
    const server = await start(certs);
    const handshake = (options: ConnectionOptions) =>
      new Promise<string>((resolve) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: certs.caCert, servername: 'localhost', ...options });
        socket.once('secureConnect', () => {
          resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
          socket.destroy();
        });
        socket.once('error', () => resolve('refused'));
      });
    try {
      expect(await handshake({})).toMatch(/^TLSv1\.3 TLS_/);
      expect(await handshake({ maxVersion: 'TLSv1.2' })).toMatch(/^TLSv1\.2 ECDHE-ECDSA-(AES\d+-GCM|CHACHA20-POLY1305)/);
      expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384' })).toBe('refused');
    } finally {
      await server.shutdown();
    }
  });
});

describe('client certificates (--client-ca-file)', () => {
  it('refuses a caller without a certificate from the client CA at the handshake, and serves one with', async () => {
    const certs = await writeTestCertificates();
    const client = await generateCertificates({ commonName: 'kube-apiserver', clientAuth: true });
    const stranger = await generateCertificates({ commonName: 'kube-apiserver', clientAuth: true });
    const clientCaFile = join(certs.dir, 'client-ca.crt');
    await writeFile(clientCaFile, client.caCert);
    const server = await start(certs, [], { clientCaFile });
    const url = `https://127.0.0.1:${server.port}/validate`;
    const body = JSON.stringify(podReview({ pullPolicy: 'Always' }));
    try {
      await expect(post(url, body, { ca: certs.caCert })).rejects.toThrow();
      await expect(post(url, body, { ca: certs.caCert, agent: new Agent({ cert: stranger.cert, key: stranger.key }) })).rejects.toThrow();
      const allowed = await post(url, body, {
        ca: certs.caCert,
        agent: new Agent({ cert: client.cert, key: client.key, ca: certs.caCert }),
      });
      expect(allowed.json().response.allowed).toBe(true);
      expect(
        await (async () =>
          Number(
            /^admission_chain_tls_handshake_failures_total (\S+)$/m.exec(
              (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text,
            )?.[1],
          ))(),
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await server.shutdown();
    }
  });

  it('refuses to start on a client CA file that holds no certificate', async () => {
    const certs = await writeTestCertificates();
    const clientCaFile = join(certs.dir, 'empty-ca.crt');
    await writeFile(clientCaFile, '');
    await expect(start(certs, [], { clientCaFile })).rejects.toThrow(`client CA ${clientCaFile} holds no PEM certificate`);
  });
});
