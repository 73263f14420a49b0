// Each mutating plugin says where it writes (`mutates`), and /mutate copies and diffs only there.
// A write anywhere else would change the request's own object and be missing from the patch, so
// here every mutating plugin runs over rich objects whose parts off its paths are frozen (a write
// there throws), and its patch must equal the one from copying and comparing the whole object.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClusterState } from '../../src/adapters/local/cluster-state.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { handleAdmission } from '../../src/admission/handler.ts';
import { type AdmissionPlugin, createPlugin } from '../../src/admission/plugin.ts';
import { type AdmissionRequest, decodeReview } from '../../src/admission/review.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { createLocalBackend } from '../../src/wiring/local.ts';
import { deadlineOf } from '../support/attributes.ts';
import { unreachableImageReviewBackend } from '../support/image-review-backend.ts';
import { podReview } from '../support/reviews.ts';

const fixtures = join(import.meta.dirname, '../fixtures');

/** Every AdmissionReview fixture with an object, plus pods that take each plugin's every write. */
function requests(): Array<[string, AdmissionRequest]> {
  const out: Array<[string, AdmissionRequest]> = [];
  for (const dir of readdirSync(fixtures)) {
    for (const file of readdirSync(join(fixtures, dir)).filter((f) => f.endsWith('.json'))) {
      const body: unknown = JSON.parse(readFileSync(join(fixtures, dir, file), 'utf8'));
      if ((body as { kind?: string }).kind !== 'AdmissionReview') continue;
      out.push([`${dir}/${file}`, decodeReview(body).request]);
    }
  }
  const pod = (spec: Record<string, unknown> | null) =>
    decodeReview(podReview({ uid: 'u', namespace: 'team-a', labels: { app: 'web' }, userInfo: { username: 'alice' }, spec })).request;
  const containers = [
    {
      name: 'a',
      image: 'a:1',
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
      env: [{ name: 'A', value: '1' }],
      resources: { requests: { 'example.com/gpu': '1' } },
    },
    { name: 'b', image: 'b:1', imagePullPolicy: 'Never' },
  ];
  out.push([
    'pod with a kata runtime class, every container list and volumes',
    pod({
      runtimeClassName: 'kata',
      initContainers: [{ name: 'init', image: 'i:1' }],
      containers,
      ephemeralContainers: [{ name: 'debug', image: 'd:1' }],
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'models', image: { reference: 'm:1' } },
      ],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'gpu', operator: 'Exists' }],
    }),
  ]);
  out.push(['pod with no spec fields the plugins fill', pod({ containers: [{ name: 'a', image: 'a:1' }] })]);
  out.push(['pod with no spec at all', pod(null)]);
  out.push(['pod created on a node with topology labels', pod({ nodeName: 'node-a', containers: [{ name: 'a', image: 'a:1' }] })]);
  const bindingRequest = decodeReview(podReview({ uid: 'u', namespace: 'team-a', name: 'web' })).request;
  out.push([
    'binding of a pod to a node with topology labels',
    {
      ...bindingRequest,
      kind: { group: '', version: 'v1', kind: 'Binding' },
      subResource: 'binding',
      object: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'web', namespace: 'team-a', labels: { app: 'web' } },
        target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
      },
    },
  ]);
  return out;
}

const clusterState = parseClusterState(
  [
    readFileSync(join(fixtures, 'runtimeclass/cluster-state.yaml'), 'utf8'),
    // The default account in team-a lists a pull secret, so the plugin copies it into the pod.
    'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: team-a}\nimagePullSecrets: [{name: registry}]',
    // team-a's pods get a node selector and a toleration from their namespace.
    [
      'apiVersion: v1',
      'kind: Namespace',
      'metadata:',
      '  name: team-a',
      '  annotations:',
      '    scheduler.alpha.kubernetes.io/node-selector: "zone=a"',
      '    scheduler.alpha.kubernetes.io/defaultTolerations: \'[{"key":"dedicated","operator":"Equal","value":"team-a","effect":"NoSchedule"}]\'',
    ].join('\n'),
    // The node the scheduled pod and the Binding go to, with the labels PodTopologyLabels copies.
    'apiVersion: v1\nkind: Node\nmetadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-1, topology.kubernetes.io/region: region-1, disk: ssd}}',
  ].join('\n---\n'),
);
// Fixed names and no waiting: the two runs of a request must produce the same patch, fast.
// PodTopologyLabels acts only with its gate on.
const { ports } = createLocalBackend(clusterState, silentLogger, { PodTopologyLabelsAdmission: true });
const fixedPorts = {
  ...ports,
  // EventRateLimit, like kube-apiserver, will not start without its limits.
  configuration: {
    for: (name: string) =>
      name === 'ImagePolicyWebhook'
        ? // It takes a backend to start, though it only validates: an unreachable one, failing open.
          { source: 'test', documents: [{ imagePolicy: { kubeConfigFile: unreachableImageReviewBackend, defaultAllow: true } }] }
        : name === 'EventRateLimit'
          ? {
              source: 'test',
              documents: [
                {
                  apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
                  kind: 'Configuration',
                  limits: [{ type: 'Server', qps: 1, burst: 1 }],
                },
              ],
            }
          : undefined,
  },
  random: { intBelow: () => 0, alphanumeric: (n: number) => 'x'.repeat(n) },
  clock: { now: () => 0, sleep: async () => {} },
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const mutating = orderedPlugins
  .map((definition) => createPlugin(definition, fixedPorts, 'local'))
  .filter((plugin) => plugin.admit !== undefined);

describe('mutating plugins write only where they say', () => {
  it('every mutating plugin says where it writes', () => {
    expect(mutating.map((p) => [p.name, p.mutates !== undefined])).toEqual(mutating.map((p) => [p.name, true]));
  });

  describe.each(mutating.map((plugin) => [plugin.name, plugin] as const))('%s', (_name, plugin: AdmissionPlugin) => {
    const scoped = new AdmissionChain([{ plugin, mode: 'enforce' }]);
    // The same plugin without its paths: the whole object copied and compared.
    const whole = new AdmissionChain([
      { plugin: { name: plugin.name, handles: plugin.handles, admit: plugin.admit!.bind(plugin) }, mode: 'enforce' },
    ]);

    it.each(requests())('%s', async (_label, request) => {
      const reference = await handleAdmission(whole, 'admit', structuredClone(request), deadlineOf());
      const frozen = { ...request, object: deepFreeze(structuredClone(request.object)) };
      const handled = await handleAdmission(scoped, 'admit', frozen, deadlineOf());
      expect(handled.response.status?.message).toBe(reference.response.status?.message);
      expect(handled.response.patch).toBe(reference.response.patch);
    });

    it('changes something in at least one of these requests (so the check above is not empty)', async () => {
      const patched = await Promise.all(
        requests().map(async ([, request]) => (await handleAdmission(whole, 'admit', request, deadlineOf())).response.patch),
      );
      expect(patched.some((patch) => patch !== undefined)).toBe(true);
    });
  });
});
