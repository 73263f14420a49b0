// ImagePolicyWebhook's questions and backend requests reach /metrics, through the chain the
// composition root builds, against a real HTTPS backend: an answer from the backend and then from the
// cache, a backend answering 500 five times (every retry counted), and the zeros present from the start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributesRecord, deadlineOf } from '../../test/support/attributes.ts';
import {
  MockService,
  startTestBackend,
  type TestBackend,
  testCertificates,
  writeKubeConfig,
} from '../../test/support/image-review-backend.ts';
import { scratchFiles } from '../../test/support/scratch-files.ts';
import { parseClusterState } from '../adapters/local/cluster-state.ts';
import { definition } from '../plugins/imagepolicywebhook/index.ts';
import { silentLogger } from '../ports/logger.ts';
import { buildChain } from '../wiring/chain.ts';
import { createLocalBackend } from '../wiring/local.ts';
import { createMetrics } from './metrics.ts';

const files = scratchFiles('image-policy-metrics');
const service = new MockService();
let backend: TestBackend;
let kubeConfigFile: string;

beforeAll(async () => {
  const certs = await testCertificates();
  backend = await startTestBackend(service, { cert: certs.server, clientCA: certs.ca.cert });
  kubeConfigFile = writeKubeConfig(files, { server: backend.url, ca: certs.ca.cert, clientCert: certs.client });
});
afterAll(() => backend.close());

describe('admission_chain_image_policy_reviews_total and _backend_requests_total', () => {
  it('count answers by source and outcome, and every request by status class', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const configuration = { source: 'test', documents: [{ imagePolicy: { kubeConfigFile, retryBackoff: -1 } }] };
    const chain = buildChain({
      enabled: [definition],
      modes: {},
      backend: createLocalBackend(parseClusterState(''), silentLogger),
      metrics,
      configuration: { for: (name) => (name === 'ImagePolicyWebhook' ? configuration : undefined) },
    });
    const pod = (image: string) => attributesRecord({ spec: { containers: [{ image }] } }, { namespace: 'default', name: 'web' });
    const values = async (name: string) =>
      Object.fromEntries(
        (await metrics.registry.getSingleMetric(name)!.get()).values.map((v) => [Object.values(v.labels).join('/'), v.value]),
      );

    expect(await values('admission_chain_image_policy_reviews_total')).toEqual({
      'cache/allowed': 0,
      'cache/denied': 0,
      'backend/allowed': 0,
      'backend/denied': 0,
      'backend/error': 0,
    });
    service.allow = true;
    expect((await chain.validate(pod('app'), deadlineOf())).rejection).toBeUndefined();
    expect((await chain.validate(pod('app'), deadlineOf())).rejection).toBeUndefined();
    service.statusCode = 500;
    expect((await chain.validate(pod('other'), deadlineOf())).rejection?.code).toBe(403);
    expect(await values('admission_chain_image_policy_reviews_total')).toEqual({
      'cache/allowed': 1,
      'cache/denied': 0,
      'backend/allowed': 1,
      'backend/denied': 0,
      'backend/error': 1,
    });
    expect(await values('admission_chain_image_policy_backend_requests_total')).toEqual({
      '2xx': 1,
      '3xx': 0,
      '4xx': 0,
      '5xx': 5,
      none: 0,
    });
  });
});
