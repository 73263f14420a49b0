// Per-plugin exemptions through `serve` (HTTPS, the local backend) and `review`: for every plugin, a
// request it acts on (a patch or a denial) is left alone in a namespace its exemptions select by
// label, with the rule in the audit annotations, while the same request in another namespace is
// acted on; in a chain of several, only the exempt plugin is skipped, and the log line says so. A
// bad exemptions file stops start-up with a usage error. On the cluster backend, a selector makes the
// webhook read namespaces (and only then); a namespace the API server does not have is not exempt.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { decodePluginExemptions } from '../../src/config/plugin-exemptions.ts';
import { orderedPlugins } from '../../src/plugins/index.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import { namespaceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { type CertFiles, writeTestCertificates } from '../support/certs.ts';
import { repoRoot, runMain } from '../support/cli.ts';
import { post } from '../support/https-client.ts';
import { unreachableImageReviewBackend } from '../support/image-review-backend.ts';
import { capturedLog } from '../support/log.ts';
import { scratchFiles } from '../support/scratch-files.ts';
import { type ServedAgainst, serveAgainst } from '../support/serve-against.ts';
import { testServeConfig } from '../support/serve-config.ts';

const { write } = scratchFiles('exemptions');
const exempt = 'platform-tools';
const other = 'team-a';

/** Two namespaces alike but for their labels, each with a node selector and a default service account; a node with topology labels. */
const state = write(
  'state.yaml',
  [
    ...[
      [exempt, 'platform'],
      [other, 'a'],
    ].flatMap(([name, team]) => [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { team }, annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'pool=general' } },
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } },
    ]),
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' } },
    },
  ]
    .map((o) => stringify(o))
    .join('---\n'),
);

/** EventRateLimit will not start without a limit: one event at a time for the whole server; ImagePolicyWebhook not without a backend. */
const admissionConfiguration = write(
  'admission.yaml',
  stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'EventRateLimit',
        configuration: {
          apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
          kind: 'Configuration',
          limits: [{ type: 'Server', qps: 1, burst: 1 }],
        },
      },
      // A backend that refuses at once: without defaultAllow, every pod is denied.
      { name: 'ImagePolicyWebhook', configuration: { imagePolicy: { kubeConfigFile: unreachableImageReviewBackend } } },
    ],
  }),
);

function exemptionsFile(plugins: Array<Record<string, unknown>>): string {
  return write('exemptions.yaml', stringify({ apiVersion: 'admission-chain.io/v1alpha1', kind: 'PluginExemptions', plugins }));
}

interface Request {
  kind: string;
  resource: string;
  subResource?: string;
  object: Record<string, unknown>;
  userInfo?: { username: string; groups?: string[] };
}

const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Request => ({
  kind: 'Pod',
  resource: 'pods',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', ...metadata }, spec },
});
const container = { name: 'app', image: 'nginx:1.27', imagePullPolicy: 'Always' };

/** For each plugin, a request it acts on when it runs alone, and how many times to send it for that. */
const actedOn: Record<string, { request: Request; times?: number }> = {
  LimitPodHardAntiAffinityTopology: {
    request: pod({
      containers: [container],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'topology.kubernetes.io/zone' },
          ],
        },
      },
    }),
  },
  ServiceAccount: { request: pod({ containers: [container] }) },
  AlwaysPullImages: { request: pod({ containers: [{ name: 'app', image: 'nginx:1.27' }] }) },
  ImagePolicyWebhook: { request: pod({ containers: [container] }) },
  PodNodeSelector: { request: pod({ containers: [container] }) },
  PodTolerationRestriction: { request: pod({ containers: [{ ...container, resources: { requests: { cpu: '100m' } } }] }) },
  EventRateLimit: {
    request: {
      kind: 'Event',
      resource: 'events',
      object: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'web.1' },
        involvedObject: { kind: 'Pod', name: 'web' },
        reason: 'Started',
        source: { component: 'kubelet' },
      },
    },
    times: 2,
  },
  ExtendedResourceToleration: {
    request: pod({
      containers: [{ ...container, resources: { limits: { 'example.com/gpu': '1' }, requests: { 'example.com/gpu': '1' } } }],
    }),
  },
  StorageObjectInUseProtection: {
    request: {
      kind: 'PersistentVolumeClaim',
      resource: 'persistentvolumeclaims',
      object: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    },
  },
  OwnerReferencesPermissionEnforcement: {
    request: pod(
      { containers: [container] },
      { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u-rs', blockOwnerDeletion: true }] },
    ),
  },
  RuntimeClass: { request: pod({ containers: [container], runtimeClassName: 'missing' }) },
  DenyServiceExternalIPs: {
    request: {
      kind: 'Service',
      resource: 'services',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { ports: [{ port: 80 }], externalIPs: ['203.0.113.7'] },
      },
    },
  },
  PodTopologyLabels: { request: pod({ containers: [container], nodeName: 'node-1' }) },
};

function review(request: Request, namespace: string, uid: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: request.kind },
      resource: { group: '', version: 'v1', resource: request.resource },
      ...(request.subResource === undefined ? {} : { subResource: request.subResource }),
      namespace,
      name: (request.object.metadata as { name: string }).name,
      operation: 'CREATE',
      userInfo: request.userInfo ?? { username: 'alice', groups: ['system:authenticated'] },
      object: { ...request.object, metadata: { ...(request.object.metadata as object), namespace } },
      dryRun: false,
    },
  };
}

interface Response {
  allowed: boolean;
  patch?: string;
  status?: { message: string };
  auditAnnotations?: Record<string, string>;
}

/** /mutate then /validate, as kube-apiserver calls them: what each answered. */
async function admit(port: number, certs: CertFiles, body: object): Promise<Response[]> {
  const responses: Response[] = [];
  for (const path of ['mutate', 'validate']) {
    const res = await post(`https://127.0.0.1:${port}/${path}`, JSON.stringify(body), { ca: certs.caCert });
    expect(res.status).toBe(200);
    responses.push(res.json().response as Response);
  }
  return responses;
}

const actsOn = (responses: readonly Response[]) => responses.some((r) => !r.allowed || r.patch !== undefined);

async function serve(certs: CertFiles, args: Partial<Parameters<typeof testServeConfig>[0]>, log = capturedLog()) {
  return startWebhook(
    testServeConfig({
      tlsCertFile: certs.certFile,
      tlsPrivateKeyFile: certs.keyFile,
      clusterState: state,
      admissionControlConfigFile: admissionConfiguration,
      featureGates: ['PodTopologyLabelsAdmission=true'],
      ...args,
    }),
    log.destination,
  );
}

describe('serve --plugin-exemptions-file', () => {
  it('the table covers every plugin', () => {
    expect(Object.keys(actedOn).sort()).toEqual(orderedPlugins.map((p) => p.name).sort());
  });

  it.each(orderedPlugins.map((p) => p.name))('%s is skipped in a namespace its exemptions select, and acts elsewhere', async (name) => {
    const certs = await writeTestCertificates();
    const { request, times = 1 } = actedOn[name]!;
    const server = await serve(certs, {
      plugins: [name],
      pluginExemptionsFile: exemptionsFile([
        { name, namespaceSelectors: [{ matchExpressions: [{ key: 'team', operator: 'In', values: ['platform', 'infra'] }] }] },
      ]),
    });
    try {
      // The exempt requests first: they must not use up what the others need (EventRateLimit's tokens).
      for (let i = 0; i < times; i++) {
        const responses = await admit(server.port, certs, review(request, exempt, `exempt-${i}`));
        expect(actsOn(responses)).toBe(false);
        const annotations = responses.map((r) => r.auditAnnotations?.[`${name}.exempted`]).filter((a) => a !== undefined);
        expect(annotations.length).toBeGreaterThan(0);
        expect(annotations[0]).toBe(`namespaceSelectors[0] "team in (platform,infra)" (namespace "${exempt}")`);
      }
      const elsewhere: Response[] = [];
      for (let i = 0; i < times; i++) elsewhere.push(...(await admit(server.port, certs, review(request, other, `other-${i}`))));
      expect(actsOn(elsewhere)).toBe(true);
      expect(elsewhere.every((r) => r.auditAnnotations?.[`${name}.exempted`] === undefined)).toBe(true);
    } finally {
      await server.shutdown();
    }
  });

  it('skips only the exempt plugin, by service account, and logs the rule on the request line', async () => {
    const certs = await writeTestCertificates();
    const log = capturedLog();
    const server = await serve(
      certs,
      {
        plugins: ['AlwaysPullImages,ExtendedResourceToleration'],
        logLevel: 'info',
        pluginExemptionsFile: exemptionsFile([{ name: 'AlwaysPullImages', serviceAccounts: [`${other}/vendor-operator`] }]),
      },
      log,
    );
    try {
      const request: Request = {
        ...pod({ containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { 'example.com/gpu': '1' } } }] }),
        userInfo: { username: `system:serviceaccount:${other}:vendor-operator`, groups: ['system:serviceaccounts'] },
      };
      const [mutated, validated] = await admit(server.port, certs, review(request, other, 'sa'));
      const patch = JSON.parse(Buffer.from(mutated!.patch!, 'base64').toString()) as Array<{ path: string }>;
      // ExtendedResourceToleration still adds its toleration; AlwaysPullImages neither patches nor denies.
      expect(patch.map((op) => op.path)).toEqual(['/spec/tolerations']);
      expect(validated!.allowed).toBe(true);
      expect(validated!.auditAnnotations).toEqual({ 'AlwaysPullImages.exempted': `serviceAccount "${other}/vendor-operator"` });

      // Another user gets both plugins.
      const [, denied] = await admit(server.port, certs, review({ ...request, userInfo: { username: 'alice' } }, other, 'alice'));
      expect(denied!.allowed).toBe(false);
      expect(denied!.status?.message).toContain('imagePullPolicy');

      // Allowed requests are logged at debug; the denial's line carries no exemption, a debug line would.
      const debugLog = capturedLog();
      const debugServer = await serve(
        certs,
        {
          plugins: ['AlwaysPullImages'],
          logLevel: 'debug',
          pluginExemptionsFile: exemptionsFile([{ name: 'AlwaysPullImages', users: ['ci-bot'] }]),
        },
        debugLog,
      );
      try {
        await admit(debugServer.port, certs, review({ ...request, userInfo: { username: 'ci-bot' } }, other, 'ci'));
        await expect
          .poll(() =>
            debugLog
              .lines()
              .filter((l) => l.uid === 'ci' && l.msg === 'admission allowed')
              .map((l) => [l.webhook, l.exempted]),
          )
          .toEqual([
            ['mutate', { AlwaysPullImages: 'user "ci-bot"' }],
            ['validate', { AlwaysPullImages: 'user "ci-bot"' }],
          ]);
      } finally {
        await debugServer.shutdown();
      }
      await expect.poll(() => log.lines().find((l) => l.uid === 'alice' && l.msg === 'admission denied')).toBeDefined();
      expect(log.lines().find((l) => l.uid === 'alice' && l.msg === 'admission denied')!.exempted).toBeUndefined();
    } finally {
      await server.shutdown();
    }
  });

  it('warns about a plugin that is not enabled, and starts', async () => {
    const certs = await writeTestCertificates();
    const log = capturedLog();
    const file = exemptionsFile([{ name: 'RuntimeClass', users: ['a'] }]);
    const server = await serve(
      certs,
      {
        plugins: ['AlwaysPullImages'],
        logLevel: 'warn',
        pluginExemptionsFile: file,
      },
      log,
    );
    await server.shutdown();
    expect(log.lines().map((l) => l.warning)).toContain(
      `plugin exemptions ${file}: RuntimeClass is not enabled: its exemptions are ignored`,
    );
  });

  it.each([
    [
      'an unknown plugin',
      [{ name: 'PodSecurity', users: ['a'] }],
      'plugins[0].name: "PodSecurity" is not a plugin admission-chain implements',
    ],
    [
      'a bad selector',
      [{ name: 'AlwaysPullImages', namespaceSelectors: [{ matchLabels: { 'a b': 'c' } }] }],
      'plugins[0].namespaceSelectors[0].matchLabels["a b"] (AlwaysPullImages): Invalid value',
    ],
  ])('refuses to start with %s: exit 2, the file, the field and the plugin', async (_, plugins, message) => {
    const file = exemptionsFile(plugins);
    const result = await runMain([
      'serve',
      '--cluster-state',
      state,
      '--tls-cert-file',
      'unread.crt',
      '--tls-private-key-file',
      'unread.key',
      '--plugin-exemptions-file',
      file,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`admission-chain: plugin exemptions ${file}: ${message}`);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('review --plugin-exemptions-file', () => {
  const request = pod({ containers: [{ name: 'app', image: 'nginx:1.27' }] });
  const args = ['--cluster-state', state, '--plugins', 'AlwaysPullImages', '--phase', 'validating'];

  it('admits the exempt request, which is denied without the file', async () => {
    const body = JSON.stringify(review(request, exempt, 'r'));
    const file = exemptionsFile([{ name: 'AlwaysPullImages', namespaces: [exempt] }]);
    const exempted = await runMain(['review', '-', ...args, '--plugin-exemptions-file', file], { stdin: body });
    expect(exempted.stderr).toBe('');
    expect(JSON.parse(exempted.stdout).response).toMatchObject({
      allowed: true,
      auditAnnotations: { 'AlwaysPullImages.exempted': `namespace "${exempt}"` },
    });
    const plain = await runMain(['review', '-', ...args], { stdin: body });
    expect(JSON.parse(plain.stdout).response.allowed).toBe(false);
    // The same file leaves another namespace's request to the plugin.
    const elsewhere = await runMain(['review', '-', ...args, '--plugin-exemptions-file', file], {
      stdin: JSON.stringify(review(request, other, 'r')),
    });
    expect(JSON.parse(elsewhere.stdout).response.allowed).toBe(false);
  });

  it('explain takes the flag too', async () => {
    const file = exemptionsFile([{ name: 'AlwaysPullImages', users: ['alice'] }]);
    const result = await runMain(['explain', '-', ...args, '--plugin-exemptions-file', file], {
      stdin: JSON.stringify(review(request, other, 'e')),
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('allowed');
  });

  it('a bad file is a usage error naming it', async () => {
    const file = write(
      'bad.yaml',
      'apiVersion: admission-chain.io/v1alpha1\nkind: PluginExemptions\nplugins: [{name: AlwaysPullImages}]\n',
    );
    const result = await runMain(['review', '-', ...args, '--plugin-exemptions-file', file], {
      stdin: JSON.stringify(review(request, exempt, 'b')),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `admission-chain: plugin exemptions ${file}: plugins[0] (AlwaysPullImages): exempts nothing: give namespaces, namespaceSelectors, users, groups or serviceAccounts\n`,
    );
  });
});

describe('serve --plugin-exemptions-file on the cluster backend', () => {
  let api: StandInApiServer | undefined;
  let served: ServedAgainst | undefined;
  afterEach(async () => {
    await served?.stop();
    await api?.close();
    api = served = undefined;
  });

  const request = pod({ containers: [{ name: 'app', image: 'nginx:1.27' }] });

  it('reads namespaces for a selector: exempt where the labels match, not where they differ or the namespace is missing', async () => {
    api = await startStandInApiServer({ resources: [namespaceType] });
    api.store.put(namespaceType, { metadata: { name: exempt, labels: { team: 'platform' } } });
    api.store.put(namespaceType, { metadata: { name: other, labels: { team: 'a' } } });
    served = await serveAgainst(api, {
      plugins: ['AlwaysPullImages'],
      pluginExemptionsFile: exemptionsFile([{ name: 'AlwaysPullImages', namespaceSelectors: [{ matchLabels: { team: 'platform' } }] }]),
    });
    await served.ready();
    expect(api.calls.count('list namespaces')).toBe(1);
    const answers = async (namespace: string) =>
      (await admit(served!.server.port, served!.certs, review(request, namespace, namespace)))[1]!;
    expect(await answers(exempt)).toMatchObject({
      allowed: true,
      auditAnnotations: { 'AlwaysPullImages.exempted': expect.stringContaining('team=platform') },
    });
    expect((await answers(other)).allowed).toBe(false);
    // Not in the cache, and NotFound when read (once by /mutate, once by /validate): the plugin runs (fail closed).
    expect((await answers('not-there')).allowed).toBe(false);
    expect(api.calls.count('get namespaces')).toBe(2);
  });

  it('reads no namespaces when no rule needs their labels', async () => {
    api = await startStandInApiServer({ resources: [namespaceType] });
    served = await serveAgainst(api, {
      plugins: ['AlwaysPullImages'],
      pluginExemptionsFile: exemptionsFile([{ name: 'AlwaysPullImages', namespaces: [exempt] }]),
    });
    await served.ready();
    expect((await admit(served.server.port, served.certs, review(request, exempt, 'n')))[1]!.allowed).toBe(true);
    expect(api.calls.count('list namespaces')).toBe(0);
    expect(api.calls.count('get namespaces')).toBe(0);
  });
});

describe('audit --plugin-exemptions-file', () => {
  // audit reads pods, Services, workloads and objects with owner references: no Events.
  const notAudited = ['EventRateLimit'];
  const audited = orderedPlugins.map((p) => p.name).filter((name) => !notAudited.includes(name));
  /** The row's object as a manifest in that namespace; a PVC is audited when it has an owner. */
  const manifest = (name: string, namespace: string) => {
    const { object } = actedOn[name]!.request;
    const owned =
      name === 'StorageObjectInUseProtection'
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u-db' }] }
        : {};
    return { ...object, metadata: { ...(object.metadata as object), namespace, ...owned } };
  };

  it.each(audited)('%s: no finding in a namespace its exemptions select, a finding elsewhere', async (name) => {
    const file = write('manifests.yaml', [manifest(name, exempt), manifest(name, other)].map((o) => stringify(o)).join('---\n'));
    const exemptions = exemptionsFile([{ name, namespaceSelectors: [{ matchLabels: { team: 'platform' } }] }]);
    const result = await runMain([
      'audit',
      file,
      '--cluster-state',
      state,
      '--plugins',
      name,
      '--admission-control-config-file',
      admissionConfiguration,
      '--feature-gates',
      'PodTopologyLabelsAdmission=true',
      '--user',
      'alice',
      '--plugin-exemptions-file',
      exemptions,
      '-o',
      'json',
    ]);
    expect(result.code).toBe(0);
    const { results } = JSON.parse(result.stdout) as { results: Array<{ namespace?: string; findings: Array<{ plugin: string }> }> };
    expect(results.filter((r) => r.namespace === exempt)).toEqual([]);
    expect(results.filter((r) => r.namespace === other).flatMap((r) => r.findings.map((f) => f.plugin))).toContain(name);
  });
});

describe('the documented PluginExemptions example', () => {
  it('decodes as written, with every kind of rule', () => {
    const docs = readFileSync(`${repoRoot}docs/deploy.md`, 'utf8');
    const example = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((block) => block.includes('kind: PluginExemptions'));
    expect(example).toBeDefined();
    const rules = decodePluginExemptions(
      example!,
      'docs/deploy.md',
      orderedPlugins.map((p) => p.name),
    );
    const kinds = [...rules.values()].flatMap((r) =>
      Object.entries(r)
        .filter(([, list]) => list.length > 0)
        .map(([kind]) => kind),
    );
    expect(kinds.sort()).toEqual(['groups', 'namespaceSelectors', 'namespaces', 'serviceAccounts', 'users']);
  });
});
