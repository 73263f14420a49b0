// The Helm chart, rendered by the real helm binary for the default values and a matrix of
// non-default ones: helm lint passes, every built-in object satisfies the Kubernetes schema, and the
// fields that matter (webhook rules per plugin, failure policies, selectors, security) are what the
// values ask for.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateCertificates } from '../../src/tls/generate.ts';
import {
  type ChartInput,
  chartDir,
  defaultNamespace,
  defaultRelease,
  installNotes,
  isHook,
  type KubeObject,
  kindsOf,
  only,
  renderChart,
  runHelm,
  testImageRepository,
} from './helm.ts';
import { hasKubernetesSchema, validateKubernetesObject } from './kube-schema.ts';
import { repoRoot } from './tools.ts';
import { type MatchCondition, type RuleWithOperations, type WebhookRequest, webhookIsCalled } from './webhook-match.ts';

const fullname = `${defaultRelease}-admission-chain`;
const examplesValuesDir = join(repoRoot, 'examples', 'values');

interface Webhook {
  name: string;
  rules: RuleWithOperations[];
  failurePolicy: string;
  matchPolicy: string;
  reinvocationPolicy?: string;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  namespaceSelector: { matchExpressions: { key: string; operator: string; values: string[] }[] };
  objectSelector?: unknown;
  matchConditions: MatchCondition[];
  clientConfig: { service?: { name: string; namespace: string; path: string; port: number }; url?: string; caBundle?: string };
}
interface WebhookConfiguration extends KubeObject {
  webhooks: Webhook[];
}
interface Container {
  name: string;
  image: string;
  command: string[];
  args: string[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  startupProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  resources: Record<string, unknown>;
}
interface PodSpec {
  serviceAccountName: string;
  terminationGracePeriodSeconds: number;
  priorityClassName?: string;
  hostNetwork?: boolean;
  dnsPolicy?: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string }; emptyDir?: unknown }[];
  affinity: {
    podAntiAffinity?: {
      preferredDuringSchedulingIgnoredDuringExecution: {
        podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } };
      }[];
    };
  };
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string; labelSelector: { matchLabels: Record<string, string> } }[];
}
interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

/** The webhooks a configuration gets: rendered in it, or (registerWhenReady) in its template annotation. */
const webhooksOf = (config: WebhookConfiguration): Webhook[] => {
  const template = config.metadata.annotations?.['admission-chain.io/webhooks'];
  if (template === undefined) return config.webhooks;
  expect(config.webhooks).toBeUndefined();
  return JSON.parse(template) as Webhook[];
};
const webhookOf = (objects: KubeObject[], kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): Webhook => {
  const webhooks = webhooksOf(only<WebhookConfiguration>(objects, kind));
  expect(webhooks).toHaveLength(1);
  return webhooks[0] as Webhook;
};
/** A real CA certificate as tls.secret.caBundle wants it (the chart refuses anything else). */
const testCaBundle = Buffer.from((await generateCertificates({ commonName: 'test-ca' })).caCert).toString('base64');
const containerOf = (objects: KubeObject[]): Container =>
  only<Deployment>(objects, 'Deployment').spec.template.spec.containers[0] as Container;
const rulesSummary = (rules: RuleWithOperations[]): string[] =>
  rules.map((r) => `${r.apiGroups.join(',') || 'core'}/${r.resources.join(',')}@${r.scope}:${r.operations.join(',')}`).sort();
const allPluginsOff = {
  LimitPodHardAntiAffinityTopology: { enabled: false, mode: 'enforce' },
  ServiceAccount: { enabled: false, mode: 'enforce' },
  AlwaysPullImages: { enabled: false, mode: 'enforce' },
  ImagePolicyWebhook: { enabled: false, mode: 'enforce' },
  PodNodeSelector: { enabled: false, mode: 'enforce' },
  PodTolerationRestriction: { enabled: false, mode: 'enforce' },
  EventRateLimit: { enabled: false, mode: 'enforce' },
  ExtendedResourceToleration: { enabled: false, mode: 'enforce' },
  StorageObjectInUseProtection: { enabled: false, mode: 'enforce' },
  OwnerReferencesPermissionEnforcement: { enabled: false, mode: 'enforce' },
  RuntimeClass: { enabled: false, mode: 'enforce' },
  DenyServiceExternalIPs: { enabled: false, mode: 'enforce' },
  PodTopologyLabels: { enabled: false, mode: 'enforce' },
};
const everyPlugin = Object.keys(allPluginsOff) as (keyof typeof allPluginsOff)[];
const onlyPlugins = (...names: (keyof typeof allPluginsOff)[]): Record<string, unknown> => ({
  plugins: {
    ...allPluginsOff,
    // EventRateLimit will not start without a limit, nor ImagePolicyWebhook without its backend, as upstream.
    ...Object.fromEntries(
      names.map((n) => [
        n,
        {
          enabled: true,
          mode: 'enforce',
          ...(n === 'EventRateLimit' ? { limits: [{ type: 'Server', qps: 10, burst: 20 }] } : {}),
          ...(n === 'ImagePolicyWebhook' ? { kubeConfigSecret: { name: 'image-policy-backend' } } : {}),
        },
      ]),
    ),
  },
});

// Custom resources without a schema in kubernetes-models; anything else must validate.
const customResourceKinds = new Set([
  'cert-manager.io/v1/Issuer',
  'cert-manager.io/v1/Certificate',
  'monitoring.coreos.com/v1/ServiceMonitor',
  'monitoring.coreos.com/v1/PrometheusRule',
]);

const exampleValuesFiles = readdirSync(examplesValuesDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
/** What each example's install command adds on the command line (its header says so). */
const exampleCommandLine: Record<string, Record<string, unknown>> = {
  'bring-your-own-tls.yaml': { tls: { secret: { caBundle: testCaBundle } } },
};

const matrix: [string, ChartInput][] = [
  ['default values', {}],
  ['bring-your-own TLS', { values: { tls: { mode: 'secret', secret: { name: 'my-tls', caBundle: testCaBundle } } } }],
  ['cert-manager', { values: { tls: { mode: 'cert-manager' } } }],
  [
    'cert-manager with an existing ClusterIssuer and the webhooks rendered at once',
    {
      values: {
        tls: { mode: 'cert-manager', certManager: { issuerRef: { name: 'platform-ca', kind: 'ClusterIssuer' } } },
        webhooks: { registerWhenReady: false },
      },
    },
  ],
  [
    'URL mode on hostNetwork with extra volumes and a client CA',
    {
      values: {
        webhooks: { url: 'https://webhook.example.com:10260' },
        hostNetwork: true,
        containerPorts: { webhook: 10260, metrics: 10261 },
        extraVolumes: [{ name: 'extra', configMap: { name: 'extra' } }],
        extraVolumeMounts: [{ name: 'extra', mountPath: '/etc/extra' }],
        tls: { clientCA: { enabled: true, existingSecret: 'apiserver-client-ca' } },
      },
    },
  ],
  [
    'NetworkPolicy on',
    {
      values: {
        networkPolicy: {
          enabled: true,
          webhookFrom: [{ ipBlock: { cidr: '10.0.0.0/16' } }],
          metricsFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
        },
      },
    },
  ],
  [
    'every plugin, warn and audit modes',
    {
      values: {
        plugins: {
          ...(onlyPlugins(...everyPlugin).plugins as object),
          RuntimeClass: { enabled: true, mode: 'audit' },
          OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'warn' },
          PodTolerationRestriction: { enabled: true, mode: 'warn' },
        },
      },
    },
  ],
  ...everyPlugin.map((plugin): [string, ChartInput] => [`only ${plugin}`, { values: onlyPlugins(plugin) }]),
  [
    'PodNodeSelector and PodTolerationRestriction configured',
    {
      values: {
        plugins: {
          PodNodeSelector: {
            enabled: true,
            mode: 'enforce',
            clusterDefaultNodeSelector: 'pool=general',
            namespaceWhitelists: { 'team-a': 'pool=team-a,env=prod', sandbox: '' },
          },
          PodTolerationRestriction: {
            enabled: true,
            mode: 'audit',
            defaultTolerations: [{ key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' }],
            whitelist: [
              { key: 'pool', operator: 'Exists' },
              { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
            ],
          },
        },
      },
    },
  ],
  ['HPA on', { values: { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 } } }],
  ['ServiceMonitor with the monitoring API', { apiVersions: ['monitoring.coreos.com/v1'] }],
  [
    'monitoring API, PrometheusRule off',
    { apiVersions: ['monitoring.coreos.com/v1'], values: { metrics: { prometheusRule: { enabled: false } } } },
  ],
  ['Grafana dashboard without the monitoring API', { values: { metrics: { grafanaDashboard: { enabled: true } } } }],
  [
    'monitoring API, PrometheusRule labels, dashboard in another namespace',
    {
      apiVersions: ['monitoring.coreos.com/v1'],
      values: {
        metrics: {
          prometheusRule: { labels: { release: 'kps' } },
          grafanaDashboard: {
            enabled: true,
            namespace: 'monitoring',
            labels: { grafana_dashboard: null, team: 'platform' },
            annotations: { grafana_folder: 'Admission' },
          },
        },
      },
    },
  ],
  [
    'single replica, custom scheduling',
    {
      values: {
        replicaCount: 1,
        priorityClassName: 'system-cluster-critical',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        image: { digest: `sha256:${'a'.repeat(64)}` },
      },
    },
  ],
  [
    'inverted failure policies, extra conditions and selectors',
    {
      values: {
        webhooks: {
          mutating: {
            failurePolicy: 'Fail',
            matchConditions: [{ name: 'not-dry-run-bots', expression: "request.userInfo.username != 'bot'" }],
          },
          validating: { failurePolicy: 'Ignore' },
          excludedNamespaces: ['istio-system'],
          optOutLabel: 'example.com/no-admission',
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        },
      },
    },
  ],
  ...exampleValuesFiles.map((file): [string, ChartInput] => [
    `examples/values/${file}`,
    { valuesFiles: [join(examplesValuesDir, file)], ...(exampleCommandLine[file] ? { values: exampleCommandLine[file] } : {}) },
  ]),
];

describe.each(matrix)('chart with %s', (_label, input) => {
  it('passes helm lint --strict', () => {
    const result = runHelm('lint', input);
    expect(result.stderr + result.stdout).not.toMatch(/\[(ERROR|WARNING)\]/);
    expect(result.status).toBe(0);
  });

  it('renders only objects that satisfy their Kubernetes schema', () => {
    const objects = renderChart(input);
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) {
      const type = `${object.apiVersion}/${object.kind}`;
      if (customResourceKinds.has(type)) continue;
      expect(hasKubernetesSchema(object.apiVersion, object.kind), type).toBe(true);
      validateKubernetesObject(object);
      // The webhooks the webhook registers later must satisfy the schema as well.
      if (object.kind.endsWith('WebhookConfiguration'))
        validateKubernetesObject({ ...object, webhooks: webhooksOf(object as WebhookConfiguration) });
    }
  });

  it('never sends SubjectAccessReviews, TokenReviews, Leases or Nodes to the webhook, and wires the webhook to the Service', () => {
    const objects = renderChart(input);
    const service = only(objects, 'Service') as KubeObject & { spec: { ports: { name: string; port: number; targetPort: string }[] } };
    const neverIntercepted: WebhookRequest[] = [
      { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', operation: 'CREATE', namespaced: false },
      { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', operation: 'CREATE', namespaced: true },
      { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', operation: 'CREATE', namespaced: false },
      { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', operation: 'CREATE', namespaced: false },
      { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', operation: 'UPDATE', namespaced: true },
      { group: '', version: 'v1', resource: 'nodes', operation: 'UPDATE', namespaced: false },
      { group: '', version: 'v1', resource: 'nodes', subresource: 'status', operation: 'UPDATE', namespaced: false },
    ];
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      for (const config of objects.filter((o): o is WebhookConfiguration => o.kind === kind)) {
        for (const webhook of webhooksOf(config)) {
          for (const request of neverIntercepted) {
            expect(webhookIsCalled(webhook, request), `${webhook.name} ${request.group}/${request.resource}`).toBe(false);
          }
          const path = kind === 'MutatingWebhookConfiguration' ? '/mutate' : '/validate';
          if (webhook.clientConfig.url !== undefined) {
            expect(webhook.clientConfig.service).toBeUndefined();
            expect(webhook.clientConfig.url).toMatch(new RegExp(`^https://[^/]+${path}$`));
          } else {
            expect(webhook.clientConfig.service).toMatchObject({
              name: service.metadata.name,
              namespace: defaultNamespace,
              port: service.spec.ports.find((p) => p.name === 'webhook')?.port,
            });
            expect(webhook.clientConfig.service?.path).toBe(path);
          }
        }
      }
    }
  });
});

describe('chart with default values', () => {
  const objects = renderChart();
  const release = objects.filter((o) => !isHook(o));
  const hooks = objects.filter(isHook);

  it('renders exactly the expected objects (self-managed TLS, no HPA, no ServiceMonitor) and the pre-delete hook', () => {
    expect(kindsOf(release)).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'MutatingWebhookConfiguration',
      'PodDisruptionBudget',
      'ResourceQuota',
      'Role',
      'RoleBinding',
      'Secret',
      'Service',
      'ServiceAccount',
      'ValidatingWebhookConfiguration',
    ]);
    expect(kindsOf(hooks)).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Job', 'ServiceAccount']);
    for (const object of objects.filter((o) => !o.kind.endsWith('WebhookConfiguration') && !o.kind.startsWith('ClusterRole'))) {
      expect(object.metadata.namespace, object.kind).toBe(defaultNamespace);
    }
  });

  it('installs both configurations without webhooks: the webhook registers them from their template annotation once it answers', () => {
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      const config = only<WebhookConfiguration>(objects, kind);
      expect(config.webhooks).toBeUndefined();
      expect(JSON.parse(config.metadata.annotations?.['admission-chain.io/webhooks'] ?? 'null')).toHaveLength(1);
    }
    expect(containerOf(objects).args).toContain(`--webhook-configuration=${fullname}`);
  });

  it('mutating webhook: pods CREATE/UPDATE only, Ignore, reinvoked, side-effect free', () => {
    const webhook = webhookOf(objects, 'MutatingWebhookConfiguration');
    expect(webhook.rules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' },
    ]);
    expect(webhook).toMatchObject({
      name: 'mutate.admission-chain.io',
      failurePolicy: 'Ignore',
      matchPolicy: 'Equivalent',
      reinvocationPolicy: 'IfNeeded',
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1', 'v1beta1'],
    });
  });

  it('validating webhook: one */* rule for ORPE, Ignore while only warning, with the exclusions, pods/status and the owner-reference filter as matchConditions', () => {
    const webhook = webhookOf(objects, 'ValidatingWebhookConfiguration');
    expect(webhook.rules).toEqual([
      { apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], operations: ['CREATE', 'UPDATE'], scope: '*' },
    ]);
    expect(webhook).toMatchObject({
      name: 'validate.admission-chain.io',
      failurePolicy: 'Ignore',
      matchPolicy: 'Equivalent',
      sideEffects: 'None',
      timeoutSeconds: 10,
    });
    expect(webhook.reinvocationPolicy).toBeUndefined();
    expect(webhook.matchConditions.map((c) => c.name)).toEqual([
      'exclude-authorization-reviews',
      'exclude-authentication-reviews',
      'exclude-leases',
      'exclude-nodes',
      'exclude-pod-status',
      'only-owner-reference-writes-or-other-plugins',
    ]);
    // The exclusions must not exclude what ORPE exists for: writes whose object carries ownerReferences.
    const owned = { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'owner', uid: '1' }] } };
    for (const request of [
      { group: '', version: 'v1', resource: 'configmaps', operation: 'CREATE', namespaced: true, object: owned },
      { group: 'apps', version: 'v1', resource: 'deployments', operation: 'UPDATE', namespaced: true, object: owned, oldObject: owned },
      {
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subresource: 'status',
        operation: 'UPDATE',
        namespaced: true,
        object: owned,
        oldObject: owned,
      },
      { group: 'example.com', version: 'v1alpha1', resource: 'widgets', operation: 'CREATE', namespaced: true, object: owned },
    ] satisfies WebhookRequest[]) {
      expect(webhookIsCalled(webhook, request), request.resource).toBe(true);
    }
    expect(webhookIsCalled(webhook, { group: '', version: 'v1', resource: 'configmaps', operation: 'DELETE', namespaced: true })).toBe(
      false,
    );
    // The kubelet's status updates of owned pods: ORPE lets pods/status through unchecked, no plugin decides them.
    expect(
      webhookIsCalled(webhook, {
        group: '',
        version: 'v1',
        resource: 'pods',
        subresource: 'status',
        operation: 'UPDATE',
        namespaced: true,
        object: owned,
        oldObject: owned,
      }),
    ).toBe(false);
    expect(
      webhookIsCalled(webhook, {
        group: '',
        version: 'v1',
        resource: 'pods',
        operation: 'UPDATE',
        namespaced: true,
        object: owned,
        oldObject: owned,
      }),
    ).toBe(true);
  });

  it('keeps both webhooks out of the release namespace, kube-system, kube-node-lease and opted-out namespaces', () => {
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      expect(webhookOf(objects, kind).namespaceSelector).toEqual({
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [defaultNamespace, 'kube-system', 'kube-node-lease'] },
          { key: 'admission-chain.io/disabled', operator: 'NotIn', values: ['true'] },
        ],
      });
      expect(webhookOf(objects, kind).objectSelector).toBeUndefined();
    }
  });

  it('self-managed TLS: an empty Secret for the webhook to fill, names for its certificate, no caBundle rendered, the AKS enforcer opted out', () => {
    const secret = only(objects, 'Secret') as KubeObject & { type: string; data?: unknown };
    expect(secret).toMatchObject({ metadata: { name: `${fullname}-tls` }, type: 'Opaque' });
    expect(secret.data).toBeUndefined();
    const args = containerOf(objects).args;
    expect(args.filter((a) => a.startsWith('--self-managed-tls-'))).toEqual([
      `--self-managed-tls-secret=${defaultNamespace}/${fullname}-tls`,
      `--self-managed-tls-name=${fullname}.${defaultNamespace}.svc`,
      `--self-managed-tls-name=${fullname}`,
      `--self-managed-tls-name=${fullname}.${defaultNamespace}`,
      `--self-managed-tls-name=${fullname}.${defaultNamespace}.svc.cluster.local`,
      '--self-managed-tls-duration=2160h',
      '--self-managed-tls-renew-before=720h',
      '--self-managed-tls-ca-duration=87600h',
    ]);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      const config = only(objects, kind);
      expect(Object.keys(config.metadata.annotations ?? {}).sort()).toEqual([
        'admission-chain.io/webhooks',
        'admissions.enforcer/disabled',
        'argocd.argoproj.io/sync-wave',
      ]);
      expect(webhookOf(objects, kind).clientConfig.caBundle).toBeUndefined();
    }
    // Written in memory, never on the node's disk.
    const pod = only<Deployment>(objects, 'Deployment').spec.template.spec;
    expect(pod.volumes.find((v) => v.name === 'tls')).toEqual({ name: 'tls', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } });
    expect(objects.some((o) => o.apiVersion.startsWith('cert-manager.io/'))).toBe(false);
  });

  it('runs 3 hardened replicas with probes, drain headroom, spread and system-cluster-critical priority', () => {
    const deployment = only<Deployment>(objects, 'Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0] as Container;
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'admission-chain',
      'app.kubernetes.io/instance': defaultRelease,
    });
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(container.ports).toEqual([
      { name: 'webhook', containerPort: 8443, protocol: 'TCP' },
      { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
    ]);
    expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(container.volumeMounts).toContainEqual({ name: 'tls', mountPath: '/etc/admission-chain/tls', readOnly: false });
    expect(container.resources).toMatchObject({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } });
    // The pod must outlive the not-ready delay plus the drain, and the drain must outlast one request.
    const seconds = (flag: string): number => Number(new RegExp(`--${flag}=(\\d+)s`).exec(container.args.join(' '))?.[1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(seconds('shutdown-delay') + seconds('drain-timeout'));
    expect(seconds('drain-timeout')).toBeGreaterThanOrEqual(seconds('request-timeout'));
    expect(seconds('request-timeout')).toBeLessThan(webhookOf(objects, 'ValidatingWebhookConfiguration').timeoutSeconds);
    const antiAffinity = pod.affinity.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution[0]?.podAffinityTerm;
    expect(antiAffinity?.topologyKey).toBe('kubernetes.io/hostname');
    expect(antiAffinity?.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(pod.topologySpreadConstraints?.[0]).toMatchObject({
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: deployment.spec.selector.matchLabels },
    });
    expect(pod.priorityClassName).toBe('system-cluster-critical');
    expect(pod.hostNetwork).toBeUndefined();
  });

  it('admits its system-cluster-critical pods outside kube-system with a ResourceQuota scoped to that class', () => {
    const quota = only(objects, 'ResourceQuota') as KubeObject & { spec: Record<string, unknown> };
    expect(quota.spec).toEqual({
      hard: { pods: '8' },
      scopeSelector: { matchExpressions: [{ operator: 'In', scopeName: 'PriorityClass', values: ['system-cluster-critical'] }] },
    });
  });

  it('starts the server with the exact enabled plugin set, the TLS files it writes itself and its registration', () => {
    const container = containerOf(objects);
    expect(container.image).toBe(`${testImageRepository}:0.1.0`);
    // The same entry point the image's CMD names (the image holds dist/, not bin/ or src/).
    const dockerCmd = /^CMD\s+(\[.*\])\s*$/m.exec(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'))?.[1];
    expect(container.command).toEqual(JSON.parse(dockerCmd ?? 'null'));
    expect(container.command).toEqual(['node', '--max-semi-space-size=4', '--no-parallel-scavenge', 'dist/cli/run.js', 'serve']);
    expect(container.args.filter((a) => !a.startsWith('--self-managed-tls-'))).toEqual([
      '--port=8443',
      '--metrics-port=8080',
      '--tls-cert-file=/etc/admission-chain/tls/tls.crt',
      '--tls-private-key-file=/etc/admission-chain/tls/tls.key',
      `--webhook-configuration=${fullname}`,
      '--plugins=AlwaysPullImages,OwnerReferencesPermissionEnforcement',
      '--plugin-mode=AlwaysPullImages=warn',
      '--plugin-mode=OwnerReferencesPermissionEnforcement=warn',
      '--log-level=info',
      '--request-timeout=9s',
      '--shutdown-delay=15s',
      '--drain-timeout=10s',
    ]);
  });

  it('grants the webhook SubjectAccessReview creation (ORPE) and get/patch on its own two configurations and its own Secret, by name only', () => {
    const role = only(objects, 'ClusterRole') as KubeObject & { rules: unknown[] };
    const binding = only(objects, 'ClusterRoleBinding') as KubeObject & {
      roleRef: { name: string };
      subjects: { kind: string; name: string; namespace: string }[];
    };
    const account = only(objects, 'ServiceAccount');
    expect(role.rules).toEqual([
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
        resourceNames: [fullname],
        verbs: ['get', 'patch'],
      },
    ]);
    expect(binding.roleRef.name).toBe(role.metadata.name);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account.metadata.name, namespace: defaultNamespace }]);
    const secretRole = only(objects, 'Role') as KubeObject & { rules: unknown[] };
    const secretBinding = only(objects, 'RoleBinding') as KubeObject & { roleRef: { kind: string; name: string }; subjects: unknown[] };
    expect(secretRole.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: [`${fullname}-tls`], verbs: ['get', 'patch'] },
    ]);
    expect(secretBinding.roleRef).toMatchObject({ kind: 'Role', name: secretRole.metadata.name });
    expect(secretBinding.subjects).toEqual(binding.subjects);
    expect(only<Deployment>(objects, 'Deployment').spec.template.spec.serviceAccountName).toBe(account.metadata.name);
  });

  it('runs `unregister` as a pre-delete hook, for this Helm release only, whose ServiceAccount may only read and delete the two configurations', () => {
    const byKind = (kind: string) => hooks.find((o) => o.kind === kind) as KubeObject & Record<string, never>;
    const job = byKind('Job') as unknown as KubeObject & {
      spec: { backoffLimit: number; activeDeadlineSeconds: number; template: { spec: PodSpec & { restartPolicy: string } } };
    };
    for (const hook of hooks) {
      expect(hook.metadata.annotations?.['helm.sh/hook'], hook.kind).toBe('pre-delete');
      expect(hook.metadata.annotations?.['helm.sh/hook-delete-policy'], hook.kind).toBe('before-hook-creation,hook-succeeded');
    }
    // RBAC first, then the Job (Helm creates hooks by ascending weight).
    expect(
      hooks
        .filter((o) => o.kind !== 'Job')
        .every((o) => Number(o.metadata.annotations?.['helm.sh/hook-weight']) < Number(job.metadata.annotations?.['helm.sh/hook-weight'])),
    ).toBe(true);
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.serviceAccountName).toBe(byKind('ServiceAccount').metadata.name);
    expect(pod.containers[0]).toMatchObject({
      image: `${testImageRepository}:0.1.0`,
      command: ['node', 'dist/cli/run.js', 'unregister'],
      args: [`--webhook-configuration=${fullname}`, `--owned-by-helm-release=${defaultNamespace}/${defaultRelease}`],
    });
    expect(pod.containers[0]?.securityContext).toEqual(containerOf(objects).securityContext);
    expect(job.spec.activeDeadlineSeconds).toBe(120);
    expect((byKind('ClusterRole') as unknown as { rules: unknown[] }).rules).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
        resourceNames: [fullname],
        verbs: ['get', 'delete'],
      },
    ]);
    const binding = byKind('ClusterRoleBinding') as unknown as { roleRef: { name: string }; subjects: unknown[] };
    expect(binding.roleRef.name).toBe(byKind('ClusterRole').metadata.name);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: defaultNamespace }]);
  });

  it('renders what only `helm install` makes Helm-owned: the hook acts on that ownership, absent from a rendered and applied install', () => {
    // Helm adds its release annotations to what it installs, never to what `helm template` prints.
    for (const object of objects) {
      expect(
        Object.keys(object.metadata.annotations ?? {}).filter((key) => key.startsWith('meta.helm.sh/')),
        object.kind,
      ).toEqual([]);
    }
  });

  it('removes the configurations first wherever an order is kept: last in the file `kubectl delete -f` walks, in the last Argo CD sync wave', () => {
    const wave = (object: KubeObject) => Number(object.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0);
    const configurations = release.filter((o) => o.kind.endsWith('WebhookConfiguration'));
    expect(configurations).toHaveLength(2);
    // Argo CD deletes the highest wave first and waits until it is gone before the next.
    for (const configuration of configurations) {
      for (const other of release.filter((o) => !o.kind.endsWith('WebhookConfiguration')))
        expect(wave(configuration), other.kind).toBeGreaterThan(wave(other));
    }
    // `kubectl delete -f` deletes in the order of the file: the Service goes first, a few calls earlier.
    const kinds = release.map((o) => o.kind);
    expect(kinds.indexOf('Service')).toBeLessThan(kinds.indexOf('ValidatingWebhookConfiguration'));
    expect(kinds.slice(-2)).toEqual(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
  });

  it('keeps one replica through voluntary disruptions', () => {
    const pdb = only(objects, 'PodDisruptionBudget') as KubeObject & {
      spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(only<Deployment>(objects, 'Deployment').spec.selector.matchLabels);
  });

  it('exposes the webhook on 443 and metrics on 8080 through named target ports', () => {
    const service = only(objects, 'Service') as KubeObject & { spec: { ports: unknown[]; selector: Record<string, string> } };
    expect(service.spec.ports).toEqual([
      { name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' },
      { name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    expect(service.spec.selector).toEqual(only<Deployment>(objects, 'Deployment').spec.selector.matchLabels);
  });
});

describe('chart with cert-manager', () => {
  const objects = renderChart({ values: { tls: { mode: 'cert-manager' } } });

  it('issues the serving certificate from a self-signed CA, for every name the Service answers to, and the webhook injects its ca.crt', () => {
    const selfSigned = only(objects, 'Issuer', `${fullname}-selfsigned`) as KubeObject & { spec: Record<string, unknown> };
    const ca = only(objects, 'Certificate', `${fullname}-ca`) as KubeObject & { spec: Record<string, unknown> };
    const caIssuer = only(objects, 'Issuer', `${fullname}-ca`) as KubeObject & { spec: { ca: { secretName: string } } };
    const serving = only(objects, 'Certificate', `${fullname}-serving`) as KubeObject & {
      spec: {
        secretName: string;
        dnsNames: string[];
        issuerRef: { name: string; kind: string };
        privateKey: { rotationPolicy: string };
        usages: string[];
      };
    };
    expect(selfSigned.spec).toEqual({ selfSigned: {} });
    expect(ca.spec).toMatchObject({
      isCA: true,
      secretName: caIssuer.spec.ca.secretName,
      issuerRef: { kind: 'Issuer', name: selfSigned.metadata.name },
    });
    expect(serving.spec.issuerRef).toMatchObject({ kind: 'Issuer', name: caIssuer.metadata.name });
    expect(serving.spec.dnsNames).toEqual([
      `${fullname}.${defaultNamespace}.svc`,
      fullname,
      `${fullname}.${defaultNamespace}`,
      `${fullname}.${defaultNamespace}.svc.cluster.local`,
    ]);
    expect(serving.spec.privateKey.rotationPolicy).toBe('Always');
    expect(serving.spec.usages).toContain('server auth');
    const tlsVolume = only<Deployment>(objects, 'Deployment').spec.template.spec.volumes.find((v) => v.name === 'tls');
    expect(tlsVolume?.secret?.secretName).toBe(serving.spec.secretName);
    expect(containerOf(objects).args).toContain('--webhook-ca-bundle-file=/etc/admission-chain/tls/ca.crt');
    expect(objects.some((o) => o.kind === 'Secret' || o.kind === 'Role')).toBe(false);
  });

  it('excludes cert-manager’s namespace, which the webhook depends on for its certificate', () => {
    expect(webhookOf(objects, 'ValidatingWebhookConfiguration').namespaceSelector.matchExpressions[0]?.values).toEqual([
      defaultNamespace,
      'kube-system',
      'kube-node-lease',
      'cert-manager',
    ]);
    const elsewhere = renderChart({ values: { tls: { mode: 'cert-manager', certManager: { namespace: 'security' } } } });
    expect(webhookOf(elsewhere, 'MutatingWebhookConfiguration').namespaceSelector.matchExpressions[0]?.values).toEqual([
      defaultNamespace,
      'kube-system',
      'kube-node-lease',
      'security',
    ]);
  });

  it('an existing issuer signs the serving certificate and no CA of the chart’s own is made', () => {
    const withIssuer = renderChart({
      values: { tls: { mode: 'cert-manager', certManager: { issuerRef: { name: 'platform-ca', kind: 'ClusterIssuer' } } } },
    });
    expect(withIssuer.filter((o) => o.apiVersion.startsWith('cert-manager.io/')).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      `Certificate/${fullname}-serving`,
    ]);
    expect((only(withIssuer, 'Certificate') as KubeObject & { spec: { issuerRef: unknown } }).spec.issuerRef).toEqual({
      group: 'cert-manager.io',
      kind: 'ClusterIssuer',
      name: 'platform-ca',
    });
  });

  it('with registerWhenReady false: the webhooks are rendered and cert-manager’s cainjector injects the CA', () => {
    const rendered = renderChart({ values: { tls: { mode: 'cert-manager' }, webhooks: { registerWhenReady: false } } });
    const serving = only(rendered, 'Certificate', `${fullname}-serving`);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      const config = only<WebhookConfiguration>(rendered, kind);
      expect(config.metadata.annotations).toEqual({
        'cert-manager.io/inject-ca-from': `${serving.metadata.namespace}/${serving.metadata.name}`,
        'admissions.enforcer/disabled': 'true',
        'argocd.argoproj.io/sync-wave': '1',
      });
      expect(config.webhooks).toHaveLength(1);
    }
    expect(
      containerOf(rendered).args.some((a) => a.startsWith('--webhook-configuration') || a.startsWith('--webhook-ca-bundle-file')),
    ).toBe(false);
    expect((only(rendered, 'ClusterRole') as KubeObject & { rules: unknown[] }).rules).toEqual([
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
  });
});

// What each plugin alone sends to each webhook, and what it may read. Rules come from the plugins'
// upstream handlers: LimitPodHardAntiAffinityTopology (validate pods CREATE/UPDATE), ServiceAccount
// (admit pods CREATE; validate also pods/ephemeralcontainers UPDATE), AlwaysPullImages (pods
// CREATE/UPDATE, main resource only), ImagePolicyWebhook (pods CREATE/UPDATE and
// pods/ephemeralcontainers UPDATE, both phases), PodNodeSelector (pods CREATE), PodTolerationRestriction (pods
// CREATE/UPDATE), ExtendedResourceToleration (admit pods CREATE/UPDATE), StorageObjectInUseProtection
// (PV, PVC, VolumeAttributesClass CREATE), ORPE (everything, CREATE/UPDATE), RuntimeClass (pods
// CREATE), DenyServiceExternalIPs (validate services CREATE/UPDATE), EventRateLimit (validate core
// events CREATE/UPDATE), PodTopologyLabels (admit pods and pods/binding CREATE). None of the pod
// plugins but ServiceAccount, ImagePolicyWebhook and PodTopologyLabels looks at a subresource, nor DenyServiceExternalIPs
// at services/status.
const sar = { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] };
const serviceAccountReads = { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list', 'watch'] };
const runtimeClassReads = { apiGroups: ['node.k8s.io'], resources: ['runtimeclasses'], verbs: ['get', 'list', 'watch'] };
const namespaceReads = { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] };
const nodeReads = { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] };
// Beside what the plugins read, the webhook may always read and patch its own configurations (registration).
const registration = {
  apiGroups: ['admissionregistration.k8s.io'],
  resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
  resourceNames: [fullname],
  verbs: ['get', 'patch'],
};
const pluginTable: { plugin: keyof typeof allPluginsOff; mutating: string[] | null; validating: string[] | null; rbac: unknown[] }[] = [
  { plugin: 'LimitPodHardAntiAffinityTopology', mutating: null, validating: ['core/pods@Namespaced:CREATE,UPDATE'], rbac: [] },
  {
    plugin: 'ServiceAccount',
    mutating: ['core/pods@Namespaced:CREATE'],
    validating: ['core/pods/ephemeralcontainers@Namespaced:UPDATE', 'core/pods@Namespaced:CREATE'],
    rbac: [serviceAccountReads],
  },
  {
    plugin: 'AlwaysPullImages',
    mutating: ['core/pods@Namespaced:CREATE,UPDATE'],
    validating: ['core/pods@Namespaced:CREATE,UPDATE'],
    rbac: [],
  },
  {
    plugin: 'ImagePolicyWebhook',
    mutating: null,
    validating: ['core/pods/ephemeralcontainers@Namespaced:UPDATE', 'core/pods@Namespaced:CREATE,UPDATE'],
    rbac: [],
  },
  {
    plugin: 'PodNodeSelector',
    mutating: ['core/pods@Namespaced:CREATE'],
    validating: ['core/pods@Namespaced:CREATE'],
    rbac: [namespaceReads],
  },
  {
    plugin: 'PodTolerationRestriction',
    mutating: ['core/pods@Namespaced:CREATE,UPDATE'],
    validating: ['core/pods@Namespaced:CREATE,UPDATE'],
    rbac: [namespaceReads],
  },
  { plugin: 'EventRateLimit', mutating: null, validating: ['core/events@Namespaced:CREATE,UPDATE'], rbac: [] },
  { plugin: 'ExtendedResourceToleration', mutating: ['core/pods@Namespaced:CREATE,UPDATE'], validating: null, rbac: [] },
  {
    plugin: 'StorageObjectInUseProtection',
    mutating: [
      'core/persistentvolumeclaims@Namespaced:CREATE',
      'core/persistentvolumes@Cluster:CREATE',
      'storage.k8s.io/volumeattributesclasses@Cluster:CREATE',
    ],
    validating: null,
    rbac: [],
  },
  { plugin: 'OwnerReferencesPermissionEnforcement', mutating: null, validating: ['*/*/*@*:CREATE,UPDATE'], rbac: [sar] },
  {
    plugin: 'RuntimeClass',
    mutating: ['core/pods@Namespaced:CREATE'],
    validating: ['core/pods@Namespaced:CREATE'],
    rbac: [runtimeClassReads],
  },
  { plugin: 'DenyServiceExternalIPs', mutating: null, validating: ['core/services@Namespaced:CREATE,UPDATE'], rbac: [] },
  {
    plugin: 'PodTopologyLabels',
    mutating: ['core/pods/binding@Namespaced:CREATE', 'core/pods@Namespaced:CREATE'],
    validating: null,
    rbac: [nodeReads],
  },
];

describe.each(pluginTable)('chart with only $plugin enabled', ({ plugin, mutating, validating, rbac }) => {
  const objects = renderChart({ values: onlyPlugins(plugin) });

  it('narrows the mutating webhook to the plugin’s resources', () => {
    if (mutating === null) expect(objects.some((o) => o.kind === 'MutatingWebhookConfiguration')).toBe(false);
    else expect(rulesSummary(webhookOf(objects, 'MutatingWebhookConfiguration').rules)).toEqual(mutating);
  });

  it('narrows the validating webhook to the plugin’s resources', () => {
    if (validating === null) expect(objects.some((o) => o.kind === 'ValidatingWebhookConfiguration')).toBe(false);
    else expect(rulesSummary(webhookOf(objects, 'ValidatingWebhookConfiguration').rules)).toEqual(validating);
  });

  it('grants only what the plugin reads, and its registration', () => {
    expect((only(objects, 'ClusterRole') as KubeObject & { rules: unknown[] }).rules).toEqual([...rbac, registration]);
  });

  it('tells the server to run exactly this plugin', () => {
    expect(containerOf(objects).args).toContain(`--plugins=${plugin}`);
  });
});

// ImagePolicyWebhook's backend is named by a kubeconfig file: the user's Secret, mounted as a folder
// (files the kubeconfig names by relative path are its other keys), and the imagePolicy block in the
// AdmissionConfiguration points at it.
describe('ImagePolicyWebhook: the backend kubeconfig from a Secret, the imagePolicy block', () => {
  type ConfigMap = KubeObject & { data: Record<string, string> };
  const values = (settings: Record<string, unknown>) => ({
    plugins: { ...allPluginsOff, ImagePolicyWebhook: { enabled: true, mode: 'enforce', ...settings } },
  });

  it('mounts the Secret read-only and renders its file, TTLs, backoff and defaultAllow', () => {
    const objects = renderChart({
      values: values({
        kubeConfigSecret: { name: 'backend-kubeconfig', key: 'config' },
        allowTTL: 60,
        denyTTL: -1,
        retryBackoff: 250,
        defaultAllow: true,
      }),
    });
    const pod = only<Deployment>(objects, 'Deployment').spec.template;
    expect(pod.spec.volumes).toContainEqual({
      name: 'image-policy-kubeconfig',
      secret: expect.objectContaining({ secretName: 'backend-kubeconfig' }),
    });
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({
      name: 'image-policy-kubeconfig',
      mountPath: '/etc/admission-chain/image-policy',
      readOnly: true,
    });
    const text = only<ConfigMap>(objects, 'ConfigMap', `${fullname}-admission-configuration`).data['admission-configuration.yaml']!;
    expect(parse(text, { version: '1.1' }).plugins).toEqual([
      {
        name: 'ImagePolicyWebhook',
        configuration: {
          imagePolicy: {
            kubeConfigFile: '/etc/admission-chain/image-policy/config',
            allowTTL: 60,
            denyTTL: -1,
            retryBackoff: 250,
            defaultAllow: true,
          },
        },
      },
    ]);
  });

  it("takes upstream's defaults (0) and the Secret's kubeconfig key when only the Secret is named", () => {
    const objects = renderChart({ values: values({ kubeConfigSecret: { name: 'backend-kubeconfig' } }) });
    const text = only<ConfigMap>(objects, 'ConfigMap', `${fullname}-admission-configuration`).data['admission-configuration.yaml']!;
    expect(parse(text, { version: '1.1' }).plugins[0].configuration.imagePolicy).toEqual({
      kubeConfigFile: '/etc/admission-chain/image-policy/kubeconfig',
      allowTTL: 0,
      denyTTL: 0,
      retryBackoff: 0,
      defaultAllow: false,
    });
  });

  it('refuses to render without the Secret, and out-of-range settings', () => {
    const missing = runHelm('template', { values: values({}) });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('plugins.ImagePolicyWebhook.kubeConfigSecret.name: name the Secret');
    const outOfRange = runHelm('template', { values: values({ kubeConfigSecret: { name: 'b' }, allowTTL: 1801 }) });
    expect(outOfRange.status).not.toBe(0);
    expect(outOfRange.stderr).toContain('/plugins/ImagePolicyWebhook/allowTTL');
  });

  it('leaves the Secret out when the plugin is off', () => {
    const pod = only<Deployment>(renderChart(), 'Deployment').spec.template;
    expect(pod.spec.volumes.map((v) => v.name)).not.toContain('image-policy-kubeconfig');
  });
});

// PodTopologyLabels labels the Binding a scheduler creates (pods/binding) and a pod created already
// on a node: the mutating webhook must be called for both, and for nothing else of pods.
describe('mutating webhook with PodTopologyLabels: pods/binding and pods CREATE', () => {
  const webhook = webhookOf(renderChart({ values: onlyPlugins('PodTopologyLabels') }), 'MutatingWebhookConfiguration');
  const request = (
    operation: WebhookRequest['operation'],
    subresource?: string,
    object: unknown = { metadata: { name: 'p', namespace: 'ns' } },
  ) => ({ group: '', version: 'v1', resource: 'pods', subresource, operation, namespaced: true, object }) as WebhookRequest;
  it.each([
    [
      'a Binding',
      request('CREATE', 'binding', { kind: 'Binding', metadata: { name: 'p', namespace: 'ns' }, target: { kind: 'Node', name: 'n' } }),
      true,
    ],
    ['a pod CREATE', request('CREATE'), true],
    ['a pod UPDATE', request('UPDATE'), false],
    ['pods/status', request('UPDATE', 'status'), false],
    ['pods/eviction', request('CREATE', 'eviction'), false],
  ])('%s: called %s', (_label, call, called) => {
    expect(webhookIsCalled(webhook, call)).toBe(called);
  });
});

// Upstream limits the core Event kind only: with matchPolicy Equivalent kube-apiserver sends an
// events.k8s.io Event converted to a core one for EventRateLimit's rule, so a condition keeps it out
// (the real kube-apiserver is the referee in test/control-plane/event-rate-limit.test.ts).
describe('validating webhook with EventRateLimit: events.k8s.io Events are left out unless ORPE wants them', () => {
  const names = (values: Record<string, unknown>) =>
    webhookOf(renderChart({ values }), 'ValidatingWebhookConfiguration').matchConditions.map((c) => c.name);
  it('with EventRateLimit alone, not with ORPE beside it, nor without it', () => {
    expect(names(onlyPlugins('EventRateLimit'))).toContain('exclude-events-k8s-io-events');
    expect(names(onlyPlugins('EventRateLimit', 'OwnerReferencesPermissionEnforcement'))).not.toContain('exclude-events-k8s-io-events');
    expect(names(onlyPlugins('DenyServiceExternalIPs'))).not.toContain('exclude-events-k8s-io-events');
  });
});

// ORPE allows any write where neither object carries ownerReferences without a single check, so the
// validating webhook need not see those — unless another enabled validating plugin handles them.
describe('validating webhook: only writes carrying ownerReferences, or what another plugin handles', () => {
  const conditionName = 'only-owner-reference-writes-or-other-plugins';
  const ownerReferenceClauses =
    '(object != null && has(object.metadata) && has(object.metadata.ownerReferences)) || (oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.ownerReferences))';
  const podsClause = "(request.resource.group == '' && request.resource.resource == 'pods')";
  const validatingWith = (values: Record<string, unknown>): Webhook => webhookOf(renderChart({ values }), 'ValidatingWebhookConfiguration');
  const conditionOf = (webhook: Webhook): MatchCondition | undefined => webhook.matchConditions.find((c) => c.name === conditionName);
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true, blockOwnerDeletion: true };
  const plain = { metadata: { name: 'x', namespace: 'ns' } };
  const owned = { metadata: { name: 'x', namespace: 'ns', ownerReferences: [owner] } };
  const write = (
    group: string,
    resource: string,
    operation: 'CREATE' | 'UPDATE',
    object?: unknown,
    oldObject?: unknown,
    subresource?: string,
  ): WebhookRequest => ({
    group,
    version: 'v1',
    resource,
    subresource,
    operation,
    namespaced: true,
    object,
    oldObject,
  });

  it.each([
    ['only ORPE', onlyPlugins('OwnerReferencesPermissionEnforcement'), ownerReferenceClauses],
    [
      'ORPE and AlwaysPullImages',
      onlyPlugins('OwnerReferencesPermissionEnforcement', 'AlwaysPullImages'),
      `${podsClause} || ${ownerReferenceClauses}`,
    ],
    [
      'ORPE, ServiceAccount and RuntimeClass (pods/ephemeralcontainers folded into pods)',
      onlyPlugins('OwnerReferencesPermissionEnforcement', 'ServiceAccount', 'RuntimeClass'),
      `${podsClause} || ${ownerReferenceClauses}`,
    ],
    [
      'ORPE and StorageObjectInUseProtection (no validating half)',
      onlyPlugins('OwnerReferencesPermissionEnforcement', 'StorageObjectInUseProtection'),
      ownerReferenceClauses,
    ],
  ])('%s: the condition is last among the built-ins, with a pods clause only for a pod plugin', (_label, values, expression) => {
    const webhook = validatingWith({
      ...values,
      webhooks: { validating: { matchConditions: [{ name: 'mine', expression: "request.operation == 'CREATE'" }] } },
    });
    expect(webhook.matchConditions.map((c) => c.name).slice(-2)).toEqual([conditionName, 'mine']);
    expect(conditionOf(webhook)?.expression).toBe(expression);
  });

  it('absent with onlyOwnerReferenceWrites false, or with ORPE off, and never on the mutating webhook', () => {
    const switchedOff = renderChart({ values: { webhooks: { validating: { onlyOwnerReferenceWrites: false } } } });
    expect(conditionOf(webhookOf(switchedOff, 'ValidatingWebhookConfiguration'))).toBeUndefined();
    expect(webhookIsCalled(webhookOf(switchedOff, 'ValidatingWebhookConfiguration'), write('', 'configmaps', 'CREATE', plain))).toBe(true);
    expect(conditionOf(validatingWith(onlyPlugins('AlwaysPullImages', 'ServiceAccount')))).toBeUndefined();
    expect(conditionOf(webhookOf(renderChart(), 'MutatingWebhookConfiguration'))).toBeUndefined();
  });

  it('only ORPE: Events and ConfigMaps without ownerReferences stay away; with them, in the new or only the old object, they are sent', () => {
    const webhook = validatingWith(onlyPlugins('OwnerReferencesPermissionEnforcement'));
    expect(webhookIsCalled(webhook, write('', 'events', 'CREATE', plain))).toBe(false);
    expect(webhookIsCalled(webhook, write('events.k8s.io', 'events', 'UPDATE', plain, plain))).toBe(false);
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'UPDATE', plain, plain))).toBe(false);
    expect(webhookIsCalled(webhook, write('', 'pods', 'CREATE', plain))).toBe(false);
    expect(
      webhookIsCalled(
        webhook,
        write(
          'apps',
          'deployments',
          'UPDATE',
          { kind: 'Scale', metadata: { name: 'x' } },
          { kind: 'Scale', metadata: { name: 'x' } },
          'scale',
        ),
      ),
    ).toBe(false);
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'CREATE', owned))).toBe(true);
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'UPDATE', owned, plain))).toBe(true);
    // Removing every ownerReference is a change ORPE checks (delete permission on the object).
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'UPDATE', plain, owned))).toBe(true);
    expect(webhookIsCalled(webhook, write('example.com', 'widgets', 'UPDATE', owned, owned))).toBe(true);
  });

  it('with AlwaysPullImages (the default) pods are always sent, with or without ownerReferences; other kinds still filtered', () => {
    const webhook = webhookOf(renderChart(), 'ValidatingWebhookConfiguration');
    expect(webhookIsCalled(webhook, write('', 'pods', 'CREATE', plain))).toBe(true);
    expect(webhookIsCalled(webhook, write('', 'pods', 'UPDATE', plain, plain))).toBe(true);
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'CREATE', plain))).toBe(false);
    expect(webhookIsCalled(webhook, write('', 'configmaps', 'CREATE', owned))).toBe(true);
  });

  it('with ServiceAccount, pods/ephemeralcontainers updates are sent without ownerReferences', () => {
    const webhook = validatingWith(onlyPlugins('OwnerReferencesPermissionEnforcement', 'ServiceAccount'));
    expect(webhookIsCalled(webhook, write('', 'pods', 'UPDATE', plain, plain, 'ephemeralcontainers'))).toBe(true);
    expect(webhookIsCalled(webhook, write('', 'secrets', 'UPDATE', plain, plain))).toBe(false);
  });
});

// The five plugins that are off by default: requests only for the main pods and services resources,
// namespaces read only for the two plugins that read their annotations.
describe('the off-by-default plugins: what reaches the webhook', () => {
  const fivePlugins = [
    'LimitPodHardAntiAffinityTopology',
    'PodNodeSelector',
    'PodTolerationRestriction',
    'ExtendedResourceToleration',
    'DenyServiceExternalIPs',
  ] as const;
  const objects = renderChart({ values: onlyPlugins(...fivePlugins) });
  const pod = { metadata: { name: 'x', namespace: 'ns' } };
  const request = (resource: string, operation: WebhookRequest['operation'], subresource?: string): WebhookRequest => ({
    group: '',
    version: 'v1',
    resource,
    subresource,
    operation,
    namespaced: true,
    object: pod,
    oldObject: operation === 'UPDATE' ? pod : undefined,
  });

  it('mutating: pod creates and updates, never a pod subresource or anything else', () => {
    const webhook = webhookOf(objects, 'MutatingWebhookConfiguration');
    expect(rulesSummary(webhook.rules)).toEqual(['core/pods@Namespaced:CREATE,UPDATE']);
    expect(webhookIsCalled(webhook, request('pods', 'CREATE'))).toBe(true);
    expect(webhookIsCalled(webhook, request('pods', 'UPDATE'))).toBe(true);
    for (const [resource, operation, subresource] of [
      ['pods', 'UPDATE', 'status'],
      ['pods', 'CREATE', 'binding'],
      ['pods', 'CREATE', 'eviction'],
      ['pods', 'UPDATE', 'ephemeralcontainers'],
      ['pods', 'DELETE', undefined],
      ['services', 'CREATE', undefined],
    ] as const) {
      expect(webhookIsCalled(webhook, request(resource, operation, subresource)), `${resource}/${subresource ?? ''} ${operation}`).toBe(
        false,
      );
    }
  });

  it('validating: pod and service creates and updates, never services/status, deletes or other kinds', () => {
    const webhook = webhookOf(objects, 'ValidatingWebhookConfiguration');
    expect(rulesSummary(webhook.rules)).toEqual(['core/pods@Namespaced:CREATE,UPDATE', 'core/services@Namespaced:CREATE,UPDATE']);
    for (const [resource, operation] of [
      ['pods', 'CREATE'],
      ['pods', 'UPDATE'],
      ['services', 'CREATE'],
      ['services', 'UPDATE'],
    ] as const) {
      expect(webhookIsCalled(webhook, request(resource, operation)), `${resource} ${operation}`).toBe(true);
    }
    for (const [resource, operation, subresource] of [
      ['services', 'UPDATE', 'status'],
      ['services', 'DELETE', undefined],
      ['pods', 'UPDATE', 'status'],
      ['endpoints', 'CREATE', undefined],
      ['configmaps', 'CREATE', undefined],
    ] as const) {
      expect(webhookIsCalled(webhook, request(resource, operation, subresource)), `${resource}/${subresource ?? ''} ${operation}`).toBe(
        false,
      );
    }
  });

  it('reads namespaces, nothing else but its registration; the server runs the five in its order', () => {
    expect((only(objects, 'ClusterRole') as KubeObject & { rules: unknown[] }).rules).toEqual([namespaceReads, registration]);
    expect(containerOf(objects).args).toContain(`--plugins=${fivePlugins.join(',')}`);
  });

  it('with ORPE, Services without ownerReferences still reach the validating webhook for DenyServiceExternalIPs', () => {
    const webhook = webhookOf(
      renderChart({ values: onlyPlugins('OwnerReferencesPermissionEnforcement', 'DenyServiceExternalIPs') }),
      'ValidatingWebhookConfiguration',
    );
    expect(webhook.matchConditions.find((c) => c.name === 'only-owner-reference-writes-or-other-plugins')?.expression).toMatch(
      /^\(request\.resource\.group == '' && request\.resource\.resource == 'services'\) \|\| /,
    );
    expect(webhookIsCalled(webhook, request('services', 'CREATE'))).toBe(true);
    expect(webhookIsCalled(webhook, request('pods', 'CREATE'))).toBe(false);
    expect(webhookIsCalled(webhook, request('configmaps', 'CREATE'))).toBe(false);
  });
});

// PodNodeSelector's and PodTolerationRestriction's values become kube-apiserver's AdmissionConfiguration
// file in a ConfigMap, mounted read-only and passed with --admission-control-config-file (what the
// server reads from it: chart-server-contract.test.ts).
describe('plugin configuration as an AdmissionConfiguration file', () => {
  type ConfigMap = KubeObject & { data: Record<string, string> };
  const configMapName = `${fullname}-admission-configuration`;
  const mountPath = '/etc/admission-chain/admission';
  const flag = `--admission-control-config-file=${mountPath}/admission-configuration.yaml`;
  const configured = {
    plugins: {
      PodNodeSelector: {
        enabled: true,
        mode: 'enforce',
        clusterDefaultNodeSelector: 'pool=general',
        namespaceWhitelists: { 'team-a': 'pool=team-a,env=prod', sandbox: '' },
      },
      PodTolerationRestriction: {
        enabled: true,
        mode: 'enforce',
        defaultTolerations: [{ key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' }],
        whitelist: [
          { key: 'pool', operator: 'Exists' },
          { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
      },
    },
    podAnnotations: { 'example.com/team': 'platform' },
  };
  const podOf = (objects: KubeObject[]) =>
    only<Deployment>(objects, 'Deployment').spec.template as Deployment['spec']['template'] & {
      metadata: { annotations?: Record<string, string> };
    };

  it('default values: no file, no ConfigMap, no flag, no volume', () => {
    const objects = renderChart();
    expect(objects.some((o) => o.kind === 'ConfigMap')).toBe(false);
    expect(containerOf(objects).args.some((a) => a.startsWith('--admission-control-config-file'))).toBe(false);
    expect(podOf(objects).spec.volumes.map((v) => v.name)).toEqual(['tls', 'tmp']);
    expect(podOf(objects).metadata.annotations).toBeUndefined();
  });

  it('renders the values as an apiserver.config.k8s.io/v1 AdmissionConfiguration, in the release namespace', () => {
    const configMap = only<ConfigMap>(renderChart({ values: configured }), 'ConfigMap', configMapName);
    expect(configMap.metadata.namespace).toBe(defaultNamespace);
    expect(Object.keys(configMap.data)).toEqual(['admission-configuration.yaml']);
    expect(parse(configMap.data['admission-configuration.yaml']!, { version: '1.1' })).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'PodNodeSelector',
          configuration: {
            podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'pool=general', sandbox: '', 'team-a': 'pool=team-a,env=prod' },
          },
        },
        {
          name: 'PodTolerationRestriction',
          configuration: {
            apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1',
            kind: 'Configuration',
            default: [{ key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' }],
            whitelist: [
              { key: 'pool', operator: 'Exists' },
              { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
            ],
          },
        },
      ],
    });
  });

  it('mounts it read-only, passes it to the server, and rolls the pods when it changes', () => {
    const objects = renderChart({ values: configured });
    const configMap = only<ConfigMap>(objects, 'ConfigMap', configMapName);
    const pod = podOf(objects);
    expect(pod.spec.volumes).toContainEqual({ name: 'admission-configuration', configMap: { name: configMapName } });
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: 'admission-configuration', mountPath, readOnly: true });
    expect(containerOf(objects).args.filter((a) => a.startsWith('--admission-control-config-file'))).toEqual([flag]);
    const checksum = createHash('sha256').update(configMap.data['admission-configuration.yaml']!.trimEnd()).digest('hex');
    expect(pod.metadata.annotations).toEqual({ 'checksum/admission-configuration': checksum, 'example.com/team': 'platform' });
    const changed = podOf(
      renderChart({
        values: {
          ...configured,
          plugins: {
            ...configured.plugins,
            PodNodeSelector: { ...configured.plugins.PodNodeSelector, clusterDefaultNodeSelector: 'pool=other' },
          },
        },
      }),
    );
    expect(changed.metadata.annotations?.['checksum/admission-configuration']).not.toBe(checksum);
  });

  it('a plugin that is off contributes nothing, whatever its values say', () => {
    const objects = renderChart({
      values: { plugins: { ...configured.plugins, PodNodeSelector: { ...configured.plugins.PodNodeSelector, enabled: false } } },
    });
    const text = only<ConfigMap>(objects, 'ConfigMap', configMapName).data['admission-configuration.yaml']!;
    expect((parse(text) as { plugins: { name: string }[] }).plugins.map((p) => p.name)).toEqual(['PodTolerationRestriction']);
    expect(text).not.toContain('pool=general');
  });

  it('enabled with no configuration: empty sections, which mean upstream’s defaults', () => {
    const text = only<ConfigMap>(
      renderChart({ values: onlyPlugins('PodNodeSelector', 'PodTolerationRestriction') }),
      'ConfigMap',
      configMapName,
    ).data['admission-configuration.yaml']!;
    expect((parse(text) as { plugins: unknown[] }).plugins).toEqual([
      { name: 'PodNodeSelector', configuration: { podNodeSelectorPluginConfig: {} } },
      {
        name: 'PodTolerationRestriction',
        configuration: {
          apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1',
          kind: 'Configuration',
          default: [],
          whitelist: [],
        },
      },
    ]);
  });
});

describe('chart with non-default values', () => {
  it('merges rules of several plugins per resource and lists plugins in server order', () => {
    const objects = renderChart({
      values: onlyPlugins('RuntimeClass', 'ServiceAccount', 'AlwaysPullImages', 'StorageObjectInUseProtection'),
    });
    expect(rulesSummary(webhookOf(objects, 'MutatingWebhookConfiguration').rules)).toEqual([
      'core/persistentvolumeclaims@Namespaced:CREATE',
      'core/persistentvolumes@Cluster:CREATE',
      'core/pods@Namespaced:CREATE,UPDATE',
      'storage.k8s.io/volumeattributesclasses@Cluster:CREATE',
    ]);
    expect(rulesSummary(webhookOf(objects, 'ValidatingWebhookConfiguration').rules)).toEqual([
      'core/pods/ephemeralcontainers@Namespaced:UPDATE',
      'core/pods@Namespaced:CREATE,UPDATE',
    ]);
    expect(containerOf(objects).args).toContain('--plugins=ServiceAccount,AlwaysPullImages,StorageObjectInUseProtection,RuntimeClass');
    expect((only(objects, 'ClusterRole') as KubeObject & { rules: unknown[] }).rules).toEqual([
      serviceAccountReads,
      runtimeClassReads,
      registration,
    ]);
  });

  it('passes non-enforcing plugin modes to the server, one flag per plugin', () => {
    const objects = renderChart({
      values: {
        plugins: {
          OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'warn' },
          AlwaysPullImages: { enabled: true, mode: 'audit' },
        },
      },
    });
    const args = containerOf(objects).args;
    expect(args.filter((a) => a.startsWith('--plugin-mode='))).toEqual([
      '--plugin-mode=AlwaysPullImages=audit',
      '--plugin-mode=OwnerReferencesPermissionEnforcement=warn',
    ]);
  });

  it('passes log level, deadlines and SubjectAccessReview cache TTLs to the server', () => {
    const objects = renderChart({
      values: {
        server: {
          logLevel: 'debug',
          requestTimeoutSeconds: 5,
          shutdownDelaySeconds: 3,
          drainTimeoutSeconds: 6,
          subjectAccessReviewCache: { allowedTTL: '1m', deniedTTL: '5s' },
          extraArgs: ['--kubeconfig=/x'],
        },
        terminationGracePeriodSeconds: 10,
      },
    });
    const deployment = only<Deployment>(objects, 'Deployment');
    const args = containerOf(objects).args;
    expect(args.slice(args.findIndex((a) => a.startsWith('--log-level=')))).toEqual([
      '--log-level=debug',
      '--request-timeout=5s',
      '--shutdown-delay=3s',
      '--drain-timeout=6s',
      '--sar-allowed-ttl=1m',
      '--sar-denied-ttl=5s',
      '--kubeconfig=/x',
    ]);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(10);
  });

  it('bring-your-own TLS: no cert-manager objects, the caBundle in both webhooks, the named Secret mounted, registration without a Secret of its own', () => {
    const objects = renderChart({ values: { tls: { mode: 'secret', secret: { name: 'my-tls', caBundle: testCaBundle } } } });
    expect(objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/') || o.kind === 'Secret' || o.kind === 'Role')).toEqual([]);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      expect(webhookOf(objects, kind).clientConfig.caBundle).toBe(testCaBundle);
    }
    expect(only<Deployment>(objects, 'Deployment').spec.template.spec.volumes.find((v) => v.name === 'tls')?.secret?.secretName).toBe(
      'my-tls',
    );
    expect(containerOf(objects).args.filter((a) => a.startsWith('--webhook-') || a.startsWith('--self-managed'))).toEqual([
      `--webhook-configuration=${fullname}`,
    ]);
  });

  it('URL mode: the webhooks call the URL, and its host joins the serving certificate’s names', () => {
    const objects = renderChart({ values: { webhooks: { url: 'https://webhook.example.com:10260/' } } });
    expect(webhookOf(objects, 'MutatingWebhookConfiguration').clientConfig).toEqual({ url: 'https://webhook.example.com:10260/mutate' });
    expect(webhookOf(objects, 'ValidatingWebhookConfiguration').clientConfig).toEqual({
      url: 'https://webhook.example.com:10260/validate',
    });
    expect(containerOf(objects).args).toContain('--self-managed-tls-name=webhook.example.com');
    const byIp = renderChart({
      values: { webhooks: { url: 'https://[fd00::7]:10260' }, tls: { mode: 'cert-manager', extraDnsNames: ['10.1.2.3'] } },
    });
    expect((only(byIp, 'Certificate', `${fullname}-serving`) as KubeObject & { spec: { ipAddresses: string[] } }).spec.ipAddresses).toEqual(
      ['fd00::7', '10.1.2.3'],
    );
  });

  it('hostNetwork: the node’s network with cluster DNS, the configured ports, one pod replaced at a time', () => {
    const objects = renderChart({ values: { hostNetwork: true, containerPorts: { webhook: 10260, metrics: 10261 } } });
    const deployment = only<Deployment>(objects, 'Deployment') as Deployment & { spec: { strategy: unknown } };
    expect(deployment.spec.template.spec).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    expect(containerOf(objects).ports.map((p) => p.containerPort)).toEqual([10260, 10261]);
    expect(containerOf(objects).args.slice(0, 2)).toEqual(['--port=10260', '--metrics-port=10261']);
  });

  it('extra volumes and mounts are added after the chart’s own', () => {
    const objects = renderChart({
      values: {
        extraVolumes: [{ name: 'proxy-ca', configMap: { name: 'proxy-ca' } }],
        extraVolumeMounts: [{ name: 'proxy-ca', mountPath: '/etc/proxy-ca', readOnly: true }],
      },
    });
    const pod = only<Deployment>(objects, 'Deployment').spec.template.spec;
    expect(pod.volumes.at(-1)).toEqual({ name: 'proxy-ca', configMap: { name: 'proxy-ca' } });
    expect(pod.containers[0]?.volumeMounts.at(-1)).toEqual({ name: 'proxy-ca', mountPath: '/etc/proxy-ca', readOnly: true });
  });

  it.each([
    [
      'inline PEM, in a ConfigMap of the chart',
      { caBundle: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
      { configMap: { name: `${fullname}-client-ca`, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ],
    [
      'an existing Secret',
      { existingSecret: 'apiserver-client-ca', key: 'bundle.pem' },
      { secret: { secretName: 'apiserver-client-ca', items: [{ key: 'bundle.pem', path: 'bundle.pem' }] } },
    ],
    [
      'an existing ConfigMap',
      { existingConfigMap: 'apiserver-client-ca' },
      { configMap: { name: 'apiserver-client-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    ],
  ])('client authentication from %s: mounted, and passed as --client-ca-file', (_label, clientCA, source) => {
    const objects = renderChart({ values: { tls: { clientCA: { enabled: true, ...clientCA } } } });
    const pod = only<Deployment>(objects, 'Deployment').spec.template.spec;
    expect(pod.volumes.find((v) => v.name === 'client-ca')).toEqual({ name: 'client-ca', ...source });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({
      name: 'client-ca',
      mountPath: '/etc/admission-chain/client-ca',
      readOnly: true,
    });
    const key = (clientCA as { key?: string }).key ?? 'ca.crt';
    expect(containerOf(objects).args).toContain(`--client-ca-file=/etc/admission-chain/client-ca/${key}`);
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap') as Array<KubeObject & { data: Record<string, string> }>;
    if ('caBundle' in clientCA)
      expect(configMaps.map((c) => [c.metadata.name, c.data])).toEqual([[`${fullname}-client-ca`, { 'ca.crt': clientCA.caBundle }]]);
    else expect(configMaps).toEqual([]);
  });

  it('NetworkPolicy: the webhook port from the configured peers and the webhook’s own pods, metrics from the scrapers, nothing else', () => {
    expect(renderChart().some((o) => o.kind === 'NetworkPolicy')).toBe(false);
    const apiserver = { ipBlock: { cidr: '172.20.0.0/16' } };
    const prometheus = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
    const objects = renderChart({ values: { networkPolicy: { enabled: true, webhookFrom: [apiserver], metricsFrom: [prometheus] } } });
    const policy = only(objects, 'NetworkPolicy') as KubeObject & { spec: Record<string, unknown> };
    const selector = only<Deployment>(objects, 'Deployment').spec.selector;
    expect(policy.spec).toEqual({
      podSelector: selector,
      policyTypes: ['Ingress'],
      ingress: [
        { ports: [{ port: 'webhook', protocol: 'TCP' }], from: [{ podSelector: selector }, apiserver] },
        { ports: [{ port: 'metrics', protocol: 'TCP' }], from: [prometheus] },
      ],
    });
    const noScrapers = only(
      renderChart({ values: { networkPolicy: { enabled: true, webhookFrom: [apiserver] } } }),
      'NetworkPolicy',
    ) as KubeObject & { spec: { ingress: unknown[] } };
    expect(noScrapers.spec.ingress).toHaveLength(1);
  });

  it('inverted failure policies, extra matchConditions after the built-in ones, extra excluded namespaces, custom opt-out label', () => {
    const objects = renderChart({
      values: {
        webhooks: {
          mutating: {
            failurePolicy: 'Fail',
            reinvocationPolicy: 'Never',
            matchConditions: [{ name: 'not-bot', expression: "request.userInfo.username != 'bot'" }],
          },
          validating: { failurePolicy: 'Ignore' },
          excludedNamespaces: ['istio-system'],
          optOutLabel: 'example.com/skip',
          aksAdmissionsEnforcerDisabled: false,
          objectSelector: { matchLabels: { admitted: 'yes' } },
        },
      },
    });
    const mutating = webhookOf(objects, 'MutatingWebhookConfiguration');
    const validating = webhookOf(objects, 'ValidatingWebhookConfiguration');
    expect(mutating.failurePolicy).toBe('Fail');
    expect(mutating.reinvocationPolicy).toBe('Never');
    expect(validating.failurePolicy).toBe('Ignore');
    expect(mutating.matchConditions.at(-1)).toEqual({ name: 'not-bot', expression: "request.userInfo.username != 'bot'" });
    expect(mutating.matchConditions).toHaveLength(5);
    expect(validating.matchConditions).toHaveLength(6);
    for (const webhook of [mutating, validating]) {
      expect(webhook.namespaceSelector.matchExpressions).toEqual([
        {
          key: 'kubernetes.io/metadata.name',
          operator: 'NotIn',
          values: [defaultNamespace, 'kube-system', 'kube-node-lease', 'istio-system'],
        },
        { key: 'example.com/skip', operator: 'NotIn', values: ['true'] },
      ]);
      expect(webhook.objectSelector).toEqual({ matchLabels: { admitted: 'yes' } });
    }
    expect(Object.keys(only(objects, 'ValidatingWebhookConfiguration').metadata.annotations ?? {}).sort()).toEqual([
      'admission-chain.io/webhooks',
      'argocd.argoproj.io/sync-wave',
    ]);
  });

  it('excludes whatever namespace the release is installed in', () => {
    const objects = renderChart({ namespace: 'platform-webhooks' });
    expect(webhookOf(objects, 'ValidatingWebhookConfiguration').namespaceSelector.matchExpressions[0]?.values).toEqual([
      'platform-webhooks',
      'kube-system',
      'kube-node-lease',
    ]);
    expect(webhookOf(objects, 'ValidatingWebhookConfiguration').clientConfig.service?.namespace).toBe('platform-webhooks');
  });

  it('HPA on: autoscaling/v2 on CPU targets the Deployment, which no longer fixes replicas', () => {
    const objects = renderChart({
      values: { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 7, targetCPUUtilizationPercentage: 60 } },
    });
    const hpa = only(objects, 'HorizontalPodAutoscaler') as KubeObject & { spec: Record<string, unknown> };
    const deployment = only<Deployment>(objects, 'Deployment');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name },
      minReplicas: 2,
      maxReplicas: 7,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
    });
    expect(deployment.spec.replicas).toBeUndefined();
    expect(objects.some((o) => o.kind === 'PodDisruptionBudget')).toBe(true);
  });

  it('single replica: no PodDisruptionBudget (it would block every drain); priority class and digest honoured', () => {
    const objects = renderChart({
      values: { replicaCount: 1, priorityClassName: 'system-cluster-critical', image: { digest: `sha256:${'b'.repeat(64)}` } },
    });
    expect(objects.some((o) => o.kind === 'PodDisruptionBudget')).toBe(false);
    expect(only<Deployment>(objects, 'Deployment').spec.template.spec.priorityClassName).toBe('system-cluster-critical');
    expect(containerOf(objects).image).toBe(`${testImageRepository}@sha256:${'b'.repeat(64)}`);
  });

  it('ServiceMonitor only when the cluster serves monitoring.coreos.com/v1 and it is enabled', () => {
    expect(renderChart().some((o) => o.kind === 'ServiceMonitor')).toBe(false);
    expect(
      renderChart({ apiVersions: ['monitoring.coreos.com/v1'], values: { metrics: { serviceMonitor: { enabled: false } } } }).some(
        (o) => o.kind === 'ServiceMonitor',
      ),
    ).toBe(false);
    const objects = renderChart({
      apiVersions: ['monitoring.coreos.com/v1'],
      values: { metrics: { serviceMonitor: { labels: { release: 'prometheus' } } } },
    });
    const monitor = only(objects, 'ServiceMonitor') as KubeObject & {
      spec: { selector: { matchLabels: Record<string, string> }; namespaceSelector: unknown; endpoints: unknown[] };
    };
    const service = only(objects, 'Service') as KubeObject & { metadata: { labels: Record<string, string> } };
    expect(monitor.metadata.labels).toMatchObject({ release: 'prometheus' });
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: [defaultNamespace] });
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', scheme: 'http', interval: '30s', scrapeTimeout: '10s' }]);
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
  });
});

describe('chart ships the monitoring of charts/admission-chain/files', () => {
  const filesDir = join(chartDir, 'files');
  const monitoringApi = ['monitoring.coreos.com/v1'];
  type PrometheusRule = KubeObject & { spec: { groups: { name: string; rules: Record<string, unknown>[] }[] } };
  type ConfigMap = KubeObject & { data: Record<string, string> };

  it('PrometheusRule only when the cluster serves monitoring.coreos.com/v1 and it is enabled (the default)', () => {
    expect(renderChart().some((o) => o.kind === 'PrometheusRule')).toBe(false);
    expect(
      renderChart({ apiVersions: monitoringApi, values: { metrics: { prometheusRule: { enabled: false } } } }).some(
        (o) => o.kind === 'PrometheusRule',
      ),
    ).toBe(false);
    // Independent of the ServiceMonitor switch: rules over a hand-written scrape config still apply.
    const withoutMonitor = renderChart({ apiVersions: monitoringApi, values: { metrics: { serviceMonitor: { enabled: false } } } });
    expect(kindsOf(withoutMonitor).filter((k) => k === 'PrometheusRule' || k === 'ServiceMonitor')).toEqual(['PrometheusRule']);
  });

  it("PrometheusRule: the rule file's groups verbatim, in the release namespace, with the extra labels", () => {
    const objects = renderChart({
      apiVersions: monitoringApi,
      values: { metrics: { prometheusRule: { labels: { release: 'kube-prometheus-stack' } } } },
    });
    const rule = only<PrometheusRule>(objects, 'PrometheusRule');
    const ruleFile = parse(readFileSync(join(filesDir, 'admission-chain.rules.yaml'), 'utf8')) as { groups: unknown[] };
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.metadata).toMatchObject({ name: fullname, namespace: defaultNamespace });
    expect(rule.metadata.labels).toMatchObject({
      'app.kubernetes.io/name': 'admission-chain',
      'app.kubernetes.io/instance': defaultRelease,
      release: 'kube-prometheus-stack',
    });
    expect(rule.spec.groups.map((g) => g.name)).toEqual([
      'admission-chain.recording',
      'admission-chain.alerts',
      'admission-chain.availability',
    ]);
    expect(rule.spec).toEqual({ groups: ruleFile.groups });
    // Prometheus' own template syntax reaches the PrometheusRule untouched by Helm's.
    expect(JSON.stringify(rule.spec)).toContain('{{ $labels.type }}');
  });

  it('Grafana dashboard ConfigMap off by default, even with the monitoring API', () => {
    expect(renderChart({ apiVersions: monitoringApi }).some((o) => o.kind === 'ConfigMap')).toBe(false);
  });

  it('Grafana dashboard ConfigMap: the dashboard JSON byte for byte, labelled for the sidecar, schema-valid', () => {
    const objects = renderChart({ values: { metrics: { grafanaDashboard: { enabled: true } } } });
    const configMap = only<ConfigMap>(objects, 'ConfigMap');
    expect(configMap.metadata).toMatchObject({ name: `${fullname}-dashboard`, namespace: defaultNamespace });
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/instance': defaultRelease });
    expect(configMap.metadata.annotations).toBeUndefined();
    expect(Object.keys(configMap.data)).toEqual(['admission-chain.json']);
    expect(configMap.data['admission-chain.json']).toBe(readFileSync(join(filesDir, 'admission-chain.json'), 'utf8'));
    expect(JSON.parse(configMap.data['admission-chain.json']!)).toMatchObject({ uid: 'admission-chain', title: 'admission-chain' });
    validateKubernetesObject(configMap);
    const broken = structuredClone(configMap) as KubeObject & { data: unknown };
    broken.data = { 'admission-chain.json': { panels: [] } };
    expect(() => validateKubernetesObject(broken)).toThrow(/data/);
  });

  it('Grafana dashboard ConfigMap: own namespace, labels (a default dropped with null) and annotations', () => {
    const objects = renderChart({
      values: {
        metrics: {
          grafanaDashboard: {
            enabled: true,
            namespace: 'monitoring',
            labels: { grafana_dashboard: null, team: 'platform' },
            annotations: { grafana_folder: 'Admission' },
          },
        },
      },
    });
    const configMap = only<ConfigMap>(objects, 'ConfigMap');
    expect(configMap.metadata.namespace).toBe('monitoring');
    expect(configMap.metadata.labels).toMatchObject({ team: 'platform' });
    expect(configMap.metadata.labels?.grafana_dashboard).toBeUndefined();
    expect(configMap.metadata.annotations).toEqual({ grafana_folder: 'Admission' });
  });
});

describe('a first install breaks nothing already running', () => {
  const modeArgs = (objects: KubeObject[]) => containerOf(objects).args.filter((a) => a.startsWith('--plugin-mode='));
  const validatingPolicy = (objects: KubeObject[]) => webhookOf(objects, 'ValidatingWebhookConfiguration').failurePolicy;

  it('by default every enabled plugin warns and the validating webhook fails open; pluginMode=enforce switches them all', () => {
    const defaults = renderChart();
    expect(modeArgs(defaults)).toEqual(['--plugin-mode=AlwaysPullImages=warn', '--plugin-mode=OwnerReferencesPermissionEnforcement=warn']);
    expect(validatingPolicy(defaults)).toBe('Ignore');
    const enforced = renderChart({ values: { pluginMode: 'enforce' } });
    expect(modeArgs(enforced)).toEqual([]);
    expect(validatingPolicy(enforced)).toBe('Fail');
    // Every plugin on: each follows the one value.
    const everyPlugin = {
      plugins: Object.fromEntries(
        [
          'LimitPodHardAntiAffinityTopology',
          'ServiceAccount',
          'AlwaysPullImages',
          'PodNodeSelector',
          'PodTolerationRestriction',
          'ExtendedResourceToleration',
          'StorageObjectInUseProtection',
          'OwnerReferencesPermissionEnforcement',
          'RuntimeClass',
          'DenyServiceExternalIPs',
        ].map((n) => [n, { enabled: true }]),
      ),
    };
    expect(modeArgs(renderChart({ values: everyPlugin }))).toHaveLength(10);
    expect(modeArgs(renderChart({ values: { ...everyPlugin, pluginMode: 'enforce' } }))).toEqual([]);
  });

  it.each([
    ['one validating plugin enforcing', { plugins: { OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'enforce' } } }, 'Fail'],
    ['only a mutating-only plugin enforcing', { plugins: { ExtendedResourceToleration: { enabled: true, mode: 'enforce' } } }, 'Ignore'],
    ['all in audit', { pluginMode: 'audit' }, 'Ignore'],
    ['Fail set while warning', { webhooks: { validating: { failurePolicy: 'Fail' } } }, 'Fail'],
    ['Ignore set while enforcing', { pluginMode: 'enforce', webhooks: { validating: { failurePolicy: 'Ignore' } } }, 'Ignore'],
  ])('validating failurePolicy with %s: %s', (_label, values, policy) => {
    expect(validatingPolicy(renderChart({ values }))).toBe(policy);
  });

  it('NOTES say which plugins do not enforce, how to see what they would reject, and the one value that enforces', () => {
    const notes = (extra: string[]) => {
      const { stderr, notes } = installNotes(extra);
      expect(stderr).toBe('');
      return notes;
    };
    const warned = notes([]);
    expect(warned).toContain('Not enforcing: AlwaysPullImages (warn), OwnerReferencesPermissionEnforcement (warn).');
    expect(warned).toContain(
      `kubectl -n ${defaultNamespace} logs -l app.kubernetes.io/name=admission-chain,app.kubernetes.io/instance=${defaultRelease} --tail=-1 | grep 'a rejection was not enforced'`,
    );
    expect(warned).toContain('kubectl apply --dry-run=server -f FILE');
    expect(warned).toContain('The validating webhook fails open (Ignore) meanwhile.');
    expect(warned).toContain(`helm upgrade ${defaultRelease} CHART -n ${defaultNamespace} --reuse-values --set pluginMode=enforce`);
    expect(warned).toContain('AlwaysPullImages still sets imagePullPolicy: Always on new pods');
    const enforced = notes(['--set', 'pluginMode=enforce']);
    expect(enforced).not.toContain('Not enforcing');
    expect(enforced).not.toContain('pluginMode=enforce');
  });

  it('the line NOTES print is the one the server logs for a rejection it did not enforce', () => {
    expect(readFileSync(join(repoRoot, 'src/server/observed-handler.ts'), 'utf8')).toContain(
      "'admission allowed; a rejection was not enforced'",
    );
  });

  it.each([
    ['eks', ['amazon-cloudwatch', 'amazon-guardduty', 'aws-observability']],
    [
      'gke',
      [
        'config-management-system',
        'gke-connect',
        'gke-gmp-system',
        'gke-managed-checkpointing',
        'gke-managed-cim',
        'gke-managed-filestorecsi',
        'gke-managed-lustrecsi',
        'gke-managed-parallelstorecsi',
        'gke-managed-system',
        'gke-managed-volumepopulator',
        'gke-system',
        'gmp-public',
        'gmp-system',
      ],
    ],
    ['aks', ['aks-istio-system', 'app-routing-system', 'calico-system', 'gatekeeper-system', 'tigera-operator']],
  ])('excludedNamespacesPreset=%s adds that platform’s namespaces to both webhooks, before the configured ones', (platform, namespaces) => {
    const objects = renderChart({ values: { webhooks: { excludedNamespacesPreset: platform, excludedNamespaces: ['team-tools'] } } });
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'] as const) {
      expect(webhookOf(objects, kind).namespaceSelector.matchExpressions[0]?.values).toEqual([
        defaultNamespace,
        'kube-system',
        'kube-node-lease',
        ...namespaces,
        'team-tools',
      ]);
    }
  });

  it('no preset by default', () => {
    expect(webhookOf(renderChart(), 'ValidatingWebhookConfiguration').namespaceSelector.matchExpressions[0]?.values).toEqual([
      defaultNamespace,
      'kube-system',
      'kube-node-lease',
    ]);
  });
});

describe('chart refuses values that would break the cluster or the server', () => {
  it.each([
    ['an unknown plugin mode', { plugins: { AlwaysPullImages: { enabled: true, mode: 'block' } } }, "at '/plugins/AlwaysPullImages/mode'"],
    ['an unknown plugin', { plugins: { PodSecurity: { enabled: true, mode: 'enforce' } } }, 'PodSecurity'],
    ['a bogus failurePolicy', { webhooks: { validating: { failurePolicy: 'Sometimes' } } }, "at '/webhooks/validating/failurePolicy'"],
    ['BYO TLS without a Secret or CA', { tls: { mode: 'secret' } }, "at '/tls/secret"],
    [
      'a caBundle that is not base64',
      { tls: { mode: 'secret', secret: { name: 'x', caBundle: '-----BEGIN CERTIFICATE-----' } } },
      "at '/tls/secret/caBundle'",
    ],
    ['a webhook timeout above 30s', { webhooks: { timeoutSeconds: 31 } }, "at '/webhooks/timeoutSeconds'"],
    ['a misspelt top-level key', { replicas: 3 }, 'replicas'],
    [
      'a request deadline not below the webhook timeout',
      { webhooks: { timeoutSeconds: 9 } },
      'server.requestTimeoutSeconds (9) must be below webhooks.timeoutSeconds (9)',
    ],
    [
      'a grace period inside the drain window',
      { terminationGracePeriodSeconds: 25 },
      'terminationGracePeriodSeconds (25) must exceed server.shutdownDelaySeconds + server.drainTimeoutSeconds (25)',
    ],
    [
      'a drain shorter than one request',
      { server: { drainTimeoutSeconds: 5 } },
      'server.drainTimeoutSeconds (5) must be at least server.requestTimeoutSeconds (9)',
    ],
    ['no plugin at all', { plugins: allPluginsOff }, 'enable at least one plugin'],
    ['a misspelt PrometheusRule key', { metrics: { prometheusRule: { enable: true } } }, 'enable'],
    [
      'a dashboard label that is not a string',
      { metrics: { grafanaDashboard: { enabled: true, labels: { grafana_dashboard: 1 } } } },
      "at '/metrics/grafanaDashboard/labels/grafana_dashboard'",
    ],
    [
      'a dashboard namespace that is no DNS label',
      { metrics: { grafanaDashboard: { enabled: true, namespace: 'Monitoring_NS' } } },
      "at '/metrics/grafanaDashboard/namespace'",
    ],
    [
      'a placeholder caBundle that is base64 but no certificate',
      { tls: { mode: 'secret', secret: { name: 'x', caBundle: 'cGxhY2Vob2xkZXI=' } } },
      'tls.secret.caBundle does not decode to a PEM certificate',
    ],
    [
      'BYO TLS without its caBundle',
      { tls: { mode: 'secret', secret: { name: 'x' } } },
      'tls.secret.caBundle is required when tls.mode is secret',
    ],
    ['a webhooks.url that is not https', { webhooks: { url: 'http://webhook.example.com' } }, "at '/webhooks/url'"],
    ['client authentication without a CA', { tls: { clientCA: { enabled: true } } }, 'tls.clientCA.enabled needs exactly one of'],
    [
      'client authentication from two sources',
      { tls: { clientCA: { enabled: true, existingSecret: 'a', existingConfigMap: 'b' } } },
      'tls.clientCA.enabled needs exactly one of',
    ],
    [
      'a client CA given as base64 instead of PEM',
      { tls: { clientCA: { enabled: true, caBundle: 'LS0tLS1CRUdJTg==' } } },
      'tls.clientCA.caBundle must be a PEM bundle',
    ],
    ['an unknown TLS mode', { tls: { mode: 'self-signed' } }, "at '/tls/mode'"],
    [
      'a node selector that does not parse',
      { plugins: { PodNodeSelector: { enabled: true, mode: 'enforce', clusterDefaultNodeSelector: 'pool' } } },
      "at '/plugins/PodNodeSelector/clusterDefaultNodeSelector'",
    ],
    [
      'a node selector with a doubled equals sign',
      { plugins: { PodNodeSelector: { enabled: true, mode: 'enforce', namespaceWhitelists: { 'team-a': 'pool==team-a' } } } },
      "at '/plugins/PodNodeSelector/namespaceWhitelists/team-a'",
    ],
    [
      'a whitelist for a namespace name that cannot exist',
      { plugins: { PodNodeSelector: { enabled: true, mode: 'enforce', namespaceWhitelists: { Team_A: 'pool=a' } } } },
      'Team_A',
    ],
    [
      'PodTolerationRestriction’s upstream field name instead of the value’s',
      { plugins: { PodTolerationRestriction: { enabled: true, mode: 'enforce', default: [] } } },
      "'default'",
    ],
    [
      'a toleration with a value under Exists',
      {
        plugins: {
          PodTolerationRestriction: { enabled: true, mode: 'enforce', whitelist: [{ key: 'a', operator: 'Exists', value: 'b' }] },
        },
      },
      "at '/plugins/PodTolerationRestriction/whitelist/0",
    ],
    [
      'a toleration of every key that is not Exists',
      {
        plugins: { PodTolerationRestriction: { enabled: true, mode: 'enforce', defaultTolerations: [{ operator: 'Equal', value: 'b' }] } },
      },
      "at '/plugins/PodTolerationRestriction/defaultTolerations/0",
    ],
    [
      'tolerationSeconds without NoExecute',
      {
        plugins: {
          PodTolerationRestriction: {
            enabled: true,
            mode: 'enforce',
            defaultTolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }],
          },
        },
      },
      "at '/plugins/PodTolerationRestriction/defaultTolerations/0",
    ],
    [
      'a misspelt toleration field',
      {
        plugins: {
          PodTolerationRestriction: { enabled: true, mode: 'enforce', whitelist: [{ key: 'a', operator: 'Exists', Effect: 'NoSchedule' }] },
        },
      },
      'Effect',
    ],
    [
      'an unknown toleration effect',
      {
        plugins: {
          PodTolerationRestriction: { enabled: true, mode: 'enforce', whitelist: [{ key: 'a', operator: 'Exists', effect: 'NoEvict' }] },
        },
      },
      "at '/plugins/PodTolerationRestriction/whitelist/0/effect'",
    ],
    [
      'configuration on a plugin that takes none',
      { plugins: { DenyServiceExternalIPs: { enabled: true, mode: 'enforce', whitelist: [] } } },
      'whitelist',
    ],
    ['an unknown pluginMode', { pluginMode: 'strict' }, "at '/pluginMode'"],
    ['an empty pluginMode (a plugin’s empty mode follows it; it has nothing to follow)', { pluginMode: '' }, "at '/pluginMode'"],
    [
      'an unknown plugin mode',
      { plugins: { AlwaysPullImages: { enabled: true, mode: 'dry-run' } } },
      "at '/plugins/AlwaysPullImages/mode'",
    ],
    [
      'a platform the presets do not know',
      { webhooks: { excludedNamespacesPreset: 'openshift' } },
      "at '/webhooks/excludedNamespacesPreset'",
    ],
    [
      'a validating failure policy in the wrong case',
      { webhooks: { validating: { failurePolicy: 'fail' } } },
      "at '/webhooks/validating/failurePolicy'",
    ],
  ])('%s', (_label, values, message) => {
    const result = runHelm('template', { values });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('no image: install fails, saying none is published and how to set one', () => {
    const result = runHelm('template', { withoutImage: true });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('image.repository is required: no admission-chain image is published yet');
    expect(result.stderr).toContain('--set image.repository=REGISTRY/admission-chain --set image.tag=TAG');
  });

  it('examples/values/bring-your-own-tls.yaml alone fails on the caBundle its install command passes (no placeholder slips through)', () => {
    const result = runHelm('template', { valuesFiles: [join(examplesValuesDir, 'bring-your-own-tls.yaml')] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('tls.secret.caBundle is required when tls.mode is secret');
  });

  it('a cluster older than 1.30 (no GA matchConditions)', () => {
    const result = runHelm('template', { kubeVersion: '1.29.4' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/kubeVersion/i);
  });

  it('the schema check is live: a rendered object with a broken field is rejected', () => {
    const config = structuredClone(
      only<WebhookConfiguration>(renderChart({ values: { webhooks: { registerWhenReady: false } } }), 'ValidatingWebhookConfiguration'),
    );
    (config.webhooks[0] as Webhook).failurePolicy = 'Sometimes';
    expect(() => validateKubernetesObject(config)).toThrow(/failurePolicy/);
    const deployment = structuredClone(only<Deployment>(renderChart(), 'Deployment'));
    (deployment.spec.template.spec.containers[0] as Container).ports[0]!.containerPort = 'https' as unknown as number;
    expect(() => validateKubernetesObject(deployment)).toThrow(/containerPort/);
  });

  it('the chart directory is the one under test', () => {
    expect(chartDir.endsWith(join('charts', 'admission-chain'))).toBe(true);
  });
});
