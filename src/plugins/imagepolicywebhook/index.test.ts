// Upstream admission_test.go, every table (testdata/upstream-cases.ts), through the plugin against a
// real HTTPS ImageReview backend reached through a kubeconfig file; then what the tables leave
// implicit: the exact messages, the body sent, the retries and their waits, that it only validates.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { RecordingClock } from '../../../test/support/clock.ts';
import {
  imagePolicyDocument,
  MockService,
  type ReviewService,
  startTestBackend,
  type TestBackend,
  type TestCertificates,
  testCertificates,
  writeKubeConfig,
} from '../../../test/support/image-review-backend.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import { scratchFiles } from '../../../test/support/scratch-files.ts';
import { kubeConfigImageReviewClients } from '../../adapters/imagepolicy/kubeconfig-client.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { createPlugin } from '../../admission/plugin.ts';
import type { KubeObject } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import { definition, failedOpenAuditKey, failedOpenPodAnnotation, upstreamAuditKeyPrefix } from './index.ts';
import {
  annotationFilteringCases,
  containerCombinationCases,
  defaultAllowCases,
  goodPod,
  type PodJson,
  returnedAnnotationCases,
  tlsConfigCases,
  webhookCacheCases,
  webhookCacheSeconds,
} from './testdata/upstream-cases.ts';

const files = scratchFiles('image-policy-webhook');
let certs: TestCertificates;
const backends: TestBackend[] = [];

beforeAll(async () => {
  certs = await testCertificates();
});

afterEach(async () => {
  await Promise.all(backends.splice(0).map((backend) => backend.close()));
});

async function backendFor(service: ReviewService, tls: Parameters<typeof startTestBackend>[1] = {}): Promise<TestBackend> {
  const backend = await startTestBackend(service, { cert: certs.server, clientCA: certs.ca.cert, ...tls });
  backends.push(backend);
  return backend;
}

interface PluginOptions {
  readonly ca?: string | undefined;
  readonly clientCert?: boolean;
  /** Upstream's cacheTime, the allow and deny TTLs in seconds (0: defaults, -1: off). */
  readonly cacheTime: number;
  readonly defaultAllow: boolean;
  readonly retryBackoff?: number;
  readonly clock?: Clock;
}

/** Upstream's newImagePolicyWebhook: a kubeconfig for the backend and the YAML configuration (retryBackoff 0: the default). */
function pluginFor(backend: TestBackend, options: PluginOptions) {
  const kubeConfig = writeKubeConfig(files, {
    server: backend.url,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.clientCert === false ? {} : { clientCert: certs.client }),
  });
  const document = imagePolicyDocument(kubeConfig, {
    allowTTL: options.cacheTime,
    denyTTL: options.cacheTime,
    retryBackoff: options.retryBackoff ?? 0,
    defaultAllow: options.defaultAllow,
  });
  const configuration = { source: 'admission.yaml plugins[0].configuration', documents: [document] };
  const ports = testPorts({
    configuration: { for: () => configuration },
    imageReview: kubeConfigImageReviewClients,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return createPlugin(definition, ports, 'test');
}

/** Upstream's NewAttributesRecord(pod, nil, Pod, "namespace", "", pods, subresource, operation, ...). */
function podRequest(pod: PodJson, subresource = '', operation: 'CREATE' | 'UPDATE' = 'CREATE'): Attributes {
  return attributesRecord(structuredClone(pod), {
    kind: { group: '', version: 'version', kind: 'Pod' },
    resource: { group: '', version: 'version', resource: 'pods' },
    namespace: 'namespace',
    subresource,
    operation,
  });
}

async function validate(plugin: ReturnType<typeof pluginFor>, attributes: Attributes, context = requestContext()) {
  return rejectionOf(() => plugin.validate!(attributes, context));
}

describe('TestTLSConfig', () => {
  it.each(tlsConfigCases)('$test', async (row) => {
    const service = new MockService();
    const backend = await backendFor(service, {
      cert: row.serverCert ? certs.server : certs.untrusted,
      ...(row.serverCA === undefined ? { clientCA: undefined } : { clientCA: certs[row.serverCA].cert }),
    });
    const plugin = pluginFor(backend, {
      ca: row.clientCA === undefined ? undefined : certs[row.clientCA].cert,
      clientCert: row.clientCert,
      cacheTime: -1,
      defaultAllow: false,
    });
    const attributes = podRequest(goodPod(String(Math.floor(Math.random() * 1000))));
    service.allow = true;
    const error = await validate(plugin, attributes);
    expect(error === undefined).toBe(row.wantAllowed);
    if (row.wantErr) return;
    service.allow = false;
    expect(await validate(plugin, attributes), 'incorrectly admitted with DenyAll policy').toBeDefined();
  });
});

describe('TestWebhookCache', () => {
  it('caches answers, never errors, per request', async () => {
    const service = new MockService();
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: webhookCacheSeconds, defaultAllow: false });
    service.allow = true;
    for (const { image, steps } of webhookCacheCases) {
      const attributes = podRequest(goodPod(image));
      for (const [index, step] of steps.entries()) {
        service.statusCode = step.statusCode;
        const before = backend.bodies.length;
        const error = await validate(plugin, attributes);
        expect(error !== undefined, `${image} step ${index}: error`).toBe(step.expectedErr);
        expect(error === undefined, `${image} step ${index}: authorized`).toBe(step.expectedAuthorized);
        expect(backend.bodies.length === before, `${image} step ${index}: answered from the cache`).toBe(step.expectedCached);
      }
    }
  });
});

describe('TestContainerCombinations', () => {
  it.each(containerCombinationCases)('$test', async (row) => {
    const service = new MockService();
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    const error = await validate(plugin, podRequest(row.pod, row.subresource, row.operation));
    expect(error === undefined).toBe(row.wantAllowed);
    if (error !== undefined)
      expect(error.status).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'pods "Unknown" is forbidden: image policy webhook backend denied one or more images: not allowed',
      });
  });
});

describe('TestDefaultAllow', () => {
  // Upstream's rows also check the failed-open mark on the object Validate was given; kube-apiserver
  // gives validation a deep copy and stores the pod without it, so here the pod stays unmarked and
  // the audit annotation carries the row's expectation.
  it.each(defaultAllowCases)('$test', async (row) => {
    const service = new MockService();
    service.statusCode = 500;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: row.defaultAllow });
    const attributes = podRequest(row.pod);
    const context = requestContext();
    const error = await validate(plugin, attributes, context);
    expect(error === undefined).toBe(row.wantAllowed);
    const podAnnotations = (attributes.object as KubeObject).metadata?.annotations ?? {};
    expect(podAnnotations[failedOpenPodAnnotation], 'no pod annotation').toBeUndefined();
    expect(context.annotations[failedOpenAuditKey] === 'true', 'fail open audit annotation').toBe(row.wantFailOpen);
    if (error !== undefined)
      expect(error.message).toBe(
        'pods "Unknown" is forbidden: an error on the server ("HTTP Error") has prevented the request from succeeding',
      );
  });
});

describe('TestAnnotationFiltering', () => {
  it.each(annotationFilteringCases)('$test', async (row) => {
    const service = new MockService();
    service.allow = true;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: true });
    const pod = { ...goodPod('test'), metadata: { annotations: row.annotations } };
    expect(await validate(plugin, podRequest(pod))).toBeUndefined();
    expect(service.received.at(-1)?.spec.annotations ?? {}).toEqual(row.outAnnotations);
  });
});

describe('TestReturnedAnnotationAdd', () => {
  it.each(returnedAnnotationCases)('$test', async (row) => {
    const service = new MockService();
    service.outAnnotations = row.verifierAnnotations;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: true });
    const context = requestContext();
    const error = await validate(plugin, podRequest(row.pod), context);
    expect(error !== undefined).toBe(row.wantErr);
    // The chain files each key under the plugin's name; upstream under its prefix.
    const asUpstream = Object.fromEntries(Object.entries(context.annotations).map(([k, v]) => [upstreamAuditKeyPrefix + k, v]));
    expect(asUpstream).toEqual(row.expectedAnnotations);
  });
});

describe('ImagePolicyWebhook beyond the tables', () => {
  it('sends the ImageReview upstream builds: containers then init containers, the filtered annotations, the namespace', async () => {
    const service = new MockService();
    service.allow = true;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    const pod = {
      metadata: { annotations: { 'b.image-policy.k8s.io/x': '<&>', 'a.image-policy.k8s.io/y': '1', other: 'no' } },
      spec: {
        initContainers: [{ image: 'init' }],
        containers: [{ image: 'app' }, {}],
        volumes: [{ name: 'v', image: { reference: 'vol' } }],
      },
    };
    expect(await validate(plugin, podRequest(pod as PodJson))).toBeUndefined();
    expect(backend.bodies).toEqual([
      '{"kind":"ImageReview","apiVersion":"imagepolicy.k8s.io/v1alpha1","metadata":{},"spec":{"containers":[{"image":"app"},{},{"image":"init"}],"annotations":{"a.image-policy.k8s.io/y":"1","b.image-policy.k8s.io/x":"\\u003c\\u0026\\u003e"},"namespace":"namespace"},"status":{"allowed":false}}',
    ]);
  });

  it('leaves other resources and subresources alone, and refuses a body that is not a pod', async () => {
    const service = new MockService();
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    expect(await validate(plugin, podRequest(goodPod('bad'), 'status'))).toBeUndefined();
    const other = attributesRecord(goodPod('bad'), { resource: { group: 'apps', version: 'v1', resource: 'pods' } });
    expect(await validate(plugin, other)).toBeUndefined();
    expect(backend.bodies).toEqual([]);
    const notAPod = podRequest({ spec: { containers: 'x' } } as unknown as PodJson);
    expect((await validate(plugin, notAPod))?.status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'Resource was marked with kind Pod but was unable to be converted',
    });
    expect(plugin.handles('DELETE')).toBe(false);
    expect(plugin.handles('CONNECT')).toBe(false);
  });

  it('retries a 500 five times, waiting the backoff grown by 1.5 with jitter, and keeps its error', async () => {
    const service = new MockService();
    service.statusCode = 500;
    const backend = await backendFor(service);
    const clock = new RecordingClock();
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false, retryBackoff: 100, clock });
    const error = await validate(plugin, podRequest(goodPod('good')));
    expect(error?.message).toBe(
      'pods "Unknown" is forbidden: an error on the server ("HTTP Error") has prevented the request from succeeding',
    );
    expect(backend.bodies).toHaveLength(5);
    // FixedRandom answers 42 of 2^30: jitter 0.2 of that fraction.
    expect(clock.sleeps).toEqual([100, 150, 225, 337.5].map((wait) => wait + (42 / 2 ** 30) * 0.2 * wait));
  });

  it.each([
    [404, 'pods "Unknown" is forbidden: the server could not find the requested resource'],
    [401, 'pods "Unknown" is forbidden: the server has asked for the client to provide credentials'],
    // client-go's 403 is a Forbidden already: admission.NewForbidden returns it as it is.
    [403, 'HTTP Error'],
  ])('does not retry a %i, denied with client-go message', async (code, message) => {
    const service = new MockService();
    service.statusCode = code;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    const error = await validate(plugin, podRequest(goodPod('good')));
    expect(error?.status).toMatchObject({ code: 403, reason: 'Forbidden', message });
    expect(backend.bodies).toHaveLength(1);
  });

  it('denies with the default message when the backend gives no reason', async () => {
    const service: ReviewService = { review: (review) => void (review.status.allowed = false), httpStatusCode: () => 200 };
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    expect((await validate(plugin, podRequest(goodPod('x'))))?.message).toBe(
      'pods "Unknown" is forbidden: one or more images rejected by webhook backend',
    );
  });

  it('caches a denial for the deny TTL and an answer expires after its TTL', async () => {
    const service = new MockService();
    const backend = await backendFor(service);
    let now = 0;
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 10, defaultAllow: false, clock });
    const attributes = podRequest(goodPod('x'));
    expect(await validate(plugin, attributes)).toBeDefined();
    now = 10_000;
    expect(await validate(plugin, attributes)).toBeDefined();
    expect(backend.bodies).toHaveLength(1);
    now = 10_001;
    service.allow = true;
    expect(await validate(plugin, attributes)).toBeUndefined();
    expect(backend.bodies).toHaveLength(2);
  });

  it('only validates: it never changes the pod, and asks the backend once per question', async () => {
    const service = new MockService();
    service.allow = true;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: true });
    expect(plugin.admit).toBeUndefined();
    expect(plugin.mutates).toBeUndefined();
    const attributes = podRequest(goodPod('x'));
    expect(await validate(plugin, attributes)).toBeUndefined();
    expect((attributes.object as KubeObject).metadata?.annotations).toBeUndefined();
    expect(backend.bodies).toHaveLength(1);
  });

  it('shows the backend a failed-open mark the pod carries, as any image-policy annotation, on create and update alike', async () => {
    const service = new MockService();
    service.allow = true;
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: -1, defaultAllow: true });
    const marked = { ...goodPod('x'), metadata: { annotations: { [failedOpenPodAnnotation]: 'true', other: 'not shown' } } };
    await validate(plugin, podRequest(marked));
    expect(service.received.at(-1)?.spec.annotations).toEqual({ [failedOpenPodAnnotation]: 'true' });
    const update = { ...podRequest(marked, '', 'UPDATE'), oldObject: structuredClone(marked) as KubeObject };
    await validate(plugin, update);
    expect(service.received.at(-1)?.spec.annotations).toEqual({ [failedOpenPodAnnotation]: 'true' });
  });

  it('fails open when the backend cannot be reached at all, and gives up at the request deadline', async () => {
    const service = new MockService();
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    await backend.close();
    const refused = await validate(plugin, podRequest(goodPod('good')));
    expect(refused?.message).toMatch(new RegExp(`^pods "Unknown" is forbidden: Post "${backend.url}": connect ECONNREFUSED`));

    const aborted = new AbortController();
    aborted.abort(new DOMException('deadline', 'TimeoutError'));
    const late = await validate(plugin, podRequest(goodPod('good')), requestContext(aborted.signal));
    expect(late?.message).toBe('pods "Unknown" is forbidden: webhook call failed: context deadline exceeded');
  });

  it('ignores audit annotation keys upstream cannot add', async () => {
    const service = new MockService();
    service.allow = true;
    service.outAnnotations = { 'ok-key': 'v', 'bad/key': 'v', '-bad': 'v' };
    const backend = await backendFor(service);
    const plugin = pluginFor(backend, { ca: certs.ca.cert, cacheTime: 0, defaultAllow: false });
    const context = requestContext();
    expect(await validate(plugin, podRequest(goodPod('good')), context)).toBeUndefined();
    expect(context.annotations).toEqual({ 'ok-key': 'v' });
  });
});
