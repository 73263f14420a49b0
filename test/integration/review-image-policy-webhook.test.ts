// `admission-chain review --admission-control-config-file` with ImagePolicyWebhook: offline, the
// plugin still asks the ImageReview backend its kubeconfig file names (a real HTTPS backend here),
// through the real CLI entry point (in-process). Upstream's TestContainerCombinations and
// TestDefaultAllow rows, the kubeconfig in an AdmissionConfiguration section and in the legacy
// `imagePolicy:` file, and the errors a user meets.
import jsonPatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  containerCombinationCases,
  defaultAllowCases,
  type PodJson,
} from '../../src/plugins/imagepolicywebhook/testdata/upstream-cases.ts';
import { runMain } from '../support/cli.ts';
import { MockService, startTestBackend, type TestBackend, testCertificates, writeKubeConfig } from '../support/image-review-backend.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const files = scratchFiles('review-image-policy');
const service = new MockService();
let backend: TestBackend;
let kubeConfig: string;
/** review reads the cluster from a file: the request's namespace is all it needs. */
const state = files.write('state.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'namespace' } }));

beforeAll(async () => {
  const certs = await testCertificates();
  backend = await startTestBackend(service, { cert: certs.server, clientCA: certs.ca.cert });
  kubeConfig = writeKubeConfig(files, { server: backend.url, ca: certs.ca.cert, clientCert: certs.client });
});
afterAll(() => backend.close());

interface Response {
  allowed: boolean;
  patch?: string;
  status?: { code: number; reason?: string; message: string };
  auditAnnotations?: Record<string, string>;
}

function configurationFile(imagePolicy: Record<string, unknown>): string {
  return files.write(
    'admission.yaml',
    stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ImagePolicyWebhook', configuration: { imagePolicy } }],
    }),
  );
}

async function review(pod: PodJson, config: string, subResource = '', operation = 'CREATE') {
  const body = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'row',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      ...(subResource === '' ? {} : { subResource }),
      namespace: 'namespace',
      name: 'web',
      operation,
      userInfo: { username: 'admin' },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'namespace', ...pod.metadata }, spec: pod.spec },
      ...(operation === 'UPDATE'
        ? { oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'namespace' }, spec: pod.spec } }
        : {}),
    },
  };
  const args = ['review', '-', '--cluster-state', state, '--plugins', 'ImagePolicyWebhook', '--admission-control-config-file', config];
  const { code, stdout, stderr } = await runMain(args, { stdin: JSON.stringify(body) });
  return { code, stderr, response: stdout === '' ? undefined : (JSON.parse(stdout).response as Response), object: body.request.object };
}

describe('ImagePolicyWebhook: upstream TestContainerCombinations through review', () => {
  it.each(containerCombinationCases)('$test', async (row) => {
    service.allow = false;
    service.statusCode = 200;
    const { code, stderr, response } = await review(
      row.pod,
      configurationFile({ kubeConfigFile: kubeConfig, allowTTL: -1, denyTTL: -1 }),
      row.subresource,
      row.operation,
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(response?.allowed).toBe(row.wantAllowed);
    if (!row.wantAllowed)
      expect(response?.status).toMatchObject({
        code: 403,
        message: 'pods "web" is forbidden: image policy webhook backend denied one or more images: not allowed',
      });
  });
});

describe('ImagePolicyWebhook: upstream TestDefaultAllow through review', () => {
  it.each(defaultAllowCases)('$test', async (row) => {
    service.statusCode = 500;
    try {
      const config = configurationFile({ kubeConfigFile: kubeConfig, defaultAllow: row.defaultAllow, retryBackoff: 1 });
      const { response, object } = await review(row.pod, config);
      expect(response?.allowed).toBe(row.wantAllowed);
      const patch = response?.patch === undefined ? [] : JSON.parse(Buffer.from(response.patch, 'base64').toString());
      const annotations = jsonPatch.applyPatch(structuredClone(object), patch).newDocument.metadata.annotations ?? {};
      // kube-apiserver stores the pod without the mark upstream writes onto validation's copy.
      expect(annotations['alpha.image-policy.k8s.io/failed-open'], 'no failed-open mark on the pod').toBeUndefined();
      expect(response?.auditAnnotations?.['ImagePolicyWebhook.failed-open'] === 'true', 'the audit annotation').toBe(row.wantFailOpen);
    } finally {
      service.statusCode = 200;
    }
  });
});

describe('ImagePolicyWebhook through review, as a user meets it', () => {
  it("a legacy file whose top level is kube-apiserver's imagePolicy block", async () => {
    service.allow = true;
    const legacy = files.write('imagepolicy.yaml', stringify({ imagePolicy: { kubeConfigFile: kubeConfig, allowTTL: 50 } }));
    const { code, response } = await review({ spec: { containers: [{ image: 'nginx' }] } }, legacy);
    expect(code).toBe(0);
    expect(response?.allowed).toBe(true);
  });

  it.each([
    [
      { kubeConfigFile: 'missing.yaml' },
      /plugin ImagePolicyWebhook: imagePolicy\.kubeConfigFile: image policy backend kubeconfig missing\.yaml: ENOENT: no such file or directory/,
    ],
    [
      { kubeConfigFile: 'k', allowTTL: 4000 },
      /plugin ImagePolicyWebhook: imagePolicy\.allowTTL: valid value is between 1s and 30m0s, got 1h6m40s\n$/,
    ],
  ])('%j: exit 2, one line, nothing printed', async (imagePolicy, message) => {
    const { code, response, stderr } = await review({ spec: { containers: [{ image: 'nginx' }] } }, configurationFile(imagePolicy));
    expect(code).toBe(2);
    expect(response).toBeUndefined();
    expect(stderr).toMatch(/^admission-chain: /);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('without a configuration: exit 2, saying none was given', async () => {
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'x' } });
    const { code, stderr } = await runMain(['review', '-', '--cluster-state', state, '--plugins', 'ImagePolicyWebhook'], { stdin: body });
    expect(code).toBe(2);
    expect(stderr).toContain('admission plugin ImagePolicyWebhook: no config specified');
  });
});
