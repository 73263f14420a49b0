// `admission-chain review --admission-control-config-file` reproduces upstream's decisions for
// PodNodeSelector, PodTolerationRestriction, ExtendedResourceToleration,
// LimitPodHardAntiAffinityTopology, DenyServiceExternalIPs and PodTopologyLabels offline: every upstream
// row, fed as an AdmissionReview through the real CLI entry point (in-process, for speed), with the
// namespaces (and nodes) in a cluster-state file and the plugins' configuration in kube-apiserver's
// AdmissionConfiguration file.
// Then modes, bad configuration files and bad annotations as a user meets them.
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { interPodAffinityCases } from '../../src/plugins/antiaffinity/testdata/upstream-cases.ts';
import { admissionCases as externalIPCases } from '../../src/plugins/denyserviceexternalips/testdata/upstream-cases.ts';
import { admitCases as extendedResourceCases } from '../../src/plugins/extendedresourcetoleration/testdata/upstream-cases.ts';
import { podAdmissionCases as nodeSelectorCases } from '../../src/plugins/podnodeselector/testdata/upstream-cases.ts';
import { podAdmissionCases as tolerationCases } from '../../src/plugins/podtolerationrestriction/testdata/upstream-cases.ts';
import * as topology from '../../src/plugins/podtopologylabels/testdata/upstream-cases.ts';
import { runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const { dir, write } = scratchFiles('review-admission-plugins');

interface Response {
  allowed: boolean;
  patch?: string;
  status?: { code: number; reason?: string; message: string };
  warnings?: string[];
}

async function review(
  request: Record<string, unknown>,
  args: string[],
): Promise<{ code: number; response: Response | undefined; stderr: string }> {
  const body = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'row', userInfo: { username: 'admin' }, ...request },
  };
  const { code, stdout, stderr } = await runMain(['review', '-', ...args], { stdin: JSON.stringify(body) });
  return { code, response: stdout === '' ? undefined : (JSON.parse(stdout).response as Response), stderr };
}

function podRequest(pod: object, namespace = 'testNamespace', operation = 'CREATE', oldObject: object | null = null) {
  return {
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace,
    name: 'testPod',
    operation,
    object: pod,
    oldObject,
  };
}

function namespaceState(name: string, annotations?: Record<string, string>): string {
  return write(
    'state.yaml',
    stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: annotations === undefined ? { name } : { name, annotations } }),
  );
}

function admissionConfiguration(plugins: Array<{ name: string; configuration?: unknown; path?: string }>): string {
  return write('admission.yaml', stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins }));
}

/** The object as the API server stores it: the request's object with the response's patch applied. */
// biome-ignore lint/suspicious/noExplicitAny: the test reaches into the JSON a patch produced
function patched(object: unknown, response: Response): any {
  const patch = response.patch === undefined ? [] : JSON.parse(Buffer.from(response.patch, 'base64').toString());
  return jsonPatch.applyPatch(structuredClone(object), patch).newDocument;
}

describe('PodNodeSelector: upstream TestPodAdmission through review', () => {
  it.each(nodeSelectorCases)('$testName', async (row) => {
    const state = namespaceState(
      'testNamespace',
      row.namespaceNodeSelector === undefined ? undefined : { 'scheduler.alpha.kubernetes.io/node-selector': row.namespaceNodeSelector },
    );
    const config = admissionConfiguration([
      {
        name: 'PodNodeSelector',
        configuration: {
          podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: row.defaultNodeSelector, testNamespace: row.whitelist },
        },
      },
    ]);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'testPod', namespace: 'testNamespace' },
      spec: { nodeSelector: row.podNodeSelector },
    };
    const { code, response, stderr } = await review(podRequest(pod), [
      '--cluster-state',
      state,
      '--plugins',
      'PodNodeSelector',
      '--admission-control-config-file',
      config,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(response!.allowed).toBe(row.admit);
    if (row.admit) expect(patched(pod, response!).spec.nodeSelector).toEqual(row.mergedNodeSelector);
    else {
      expect(response!.status).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: expect.stringMatching(/^pods "testPod" is forbidden: pod node label selector /),
      });
      // Beside the message, the remedy: which labels conflict, or lie outside the whitelist.
      expect(response!.warnings?.[0]).toMatch(
        /^nodeSelector \S+=.* (conflicts? with namespace "testNamespace"'s node selector|(is|are) outside namespace "testNamespace"'s PodNodeSelector whitelist)/,
      );
    }
  });
});

describe('PodTolerationRestriction: upstream TestPodAdmission through review', () => {
  it.each(tolerationCases)('$testName', async (row) => {
    const annotations: Record<string, string> = {};
    if (row.namespaceTolerations !== undefined)
      annotations['scheduler.alpha.kubernetes.io/defaultTolerations'] = JSON.stringify(row.namespaceTolerations);
    if (row.whitelist !== undefined) annotations['scheduler.alpha.kubernetes.io/tolerationsWhitelist'] = JSON.stringify(row.whitelist);
    const state = namespaceState('testNamespace', annotations);
    // The cluster-wide configuration by path, relative to the AdmissionConfiguration file.
    const section = write(
      'ptr.yaml',
      stringify({
        apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1',
        kind: 'Configuration',
        default: row.defaultClusterTolerations ?? [],
        whitelist: row.clusterWhitelist ?? [],
      }),
    );
    const config = admissionConfiguration([{ name: 'PodTolerationRestriction', path: section.slice(dir.length + 1) }]);
    const pod = { apiVersion: 'v1', kind: 'Pod', ...row.pod() };
    pod.spec!.tolerations = row.podTolerations;
    const { code, response, stderr } = await review(podRequest(pod), [
      '--cluster-state',
      state,
      '--plugins',
      'PodTolerationRestriction',
      '--admission-control-config-file',
      config,
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(response!.allowed).toBe(row.admit);
    if (row.admit) expect(patched(pod, response!).spec.tolerations).toEqual(row.mergedTolerations);
    else {
      expect(response!.status).toEqual({
        metadata: {},
        status: 'Failure',
        code: 500,
        message: 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
      });
      expect(response!.warnings?.[0]).toMatch(/^toleration \{.*\} is not in namespace "testNamespace"'s tolerationsWhitelist: remove/);
    }
  });
});

describe('ExtendedResourceToleration: upstream TestAdmit through review', () => {
  it.each(extendedResourceCases)('$description', async (row) => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'name', namespace: 'foo' }, spec: row.spec };
    const { code, response, stderr } = await review(podRequest(pod, 'foo'), [
      '--cluster-state',
      namespaceState('foo'),
      '--plugins',
      'ExtendedResourceToleration',
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(response!.allowed).toBe(true);
    expect(patched(pod, response!).spec.tolerations).toEqual(row.expected);
  });
});

describe('LimitPodHardAntiAffinityTopology: upstream TestInterPodAffinityAdmission through review', () => {
  it.each(interPodAffinityCases)('$name', async (row) => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'name', namespace: 'foo' }, spec: { affinity: row.affinity } };
    const { code, response } = await review(podRequest(pod, 'foo'), [
      '--cluster-state',
      namespaceState('foo'),
      '--plugins',
      'LimitPodHardAntiAffinityTopology',
    ]);
    expect(code).toBe(0);
    expect(response!.allowed).toBe(!row.errorExpected);
    if (row.errorExpected) {
      expect(response!.status?.message).toBe(
        'pods "name" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  zone  but only key kubernetes.io/hostname is allowed',
      );
      expect(response!.warnings).toEqual([
        expect.stringMatching(/^required pod anti-affinity term \d+ uses topologyKey " zone "; only kubernetes.io\/hostname is allowed/),
      ]);
    }
  });
});

describe('DenyServiceExternalIPs: upstream TestAdmission through review', () => {
  it.each(externalIPCases)('$name', async (row) => {
    const request = {
      kind: { group: '', version: 'v1', kind: 'Service' },
      resource: { group: '', version: 'v1', resource: 'services' },
      namespace: 'test-ns',
      name: 'test-svc',
      operation: row.oldSvc === undefined ? 'CREATE' : 'UPDATE',
      object: { apiVersion: 'v1', kind: 'Service', ...row.newSvc },
      oldObject: row.oldSvc === undefined ? null : { apiVersion: 'v1', kind: 'Service', ...row.oldSvc },
    };
    const { code, response } = await review(request, ['--cluster-state', namespaceState('test-ns'), '--plugins', 'DenyServiceExternalIPs']);
    expect(code).toBe(0);
    expect(response!.allowed).toBe(!row.fail);
    if (row.fail) {
      expect(response!.status).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'services "test-svc" is forbidden: Use of external IPs is denied by admission control',
      });
      expect(response!.warnings).toEqual([
        expect.stringMatching(
          /^new external IPs? \S.* (is|are) denied here \(DenyServiceExternalIPs\): remove (it|them) from spec.externalIPs/,
        ),
      ]);
    }
  });
});

describe('PodTopologyLabels: upstream TestPodTopology through review', () => {
  // Offline the gates are 1.34's, where PodTopologyLabelsAdmission is off: each row names its gate.
  const stateWith = (labels: Record<string, string> | undefined) =>
    write(
      'state.yaml',
      [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: topology.namespace } }, topology.node(labels)]
        .map((o) => stringify(o))
        .join('---\n'),
    );
  const labelsAfter = (object: { metadata?: { labels?: Record<string, string> } }, response: Response) => {
    const patch =
      response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, 'base64').toString()) as jsonPatch.Operation[]);
    return jsonPatch.applyPatch(structuredClone(object), patch).newDocument.metadata?.labels ?? {};
  };
  const requests = {
    'using Binding subresource': (labels: Record<string, string> | undefined) => {
      const object = { apiVersion: 'v1', kind: 'Binding', ...topology.binding(labels) };
      return { kind: { group: '', version: 'v1', kind: 'Binding' }, subResource: 'binding', object };
    },
    'using Pod directly (create)': (labels: Record<string, string> | undefined) => {
      const object = { apiVersion: 'v1', kind: 'Pod', ...topology.pod(labels, topology.nodeName) };
      return { kind: { group: '', version: 'v1', kind: 'Pod' }, object };
    },
  };
  describe.each(topology.podTopologyCases)('$name', (row) => {
    it.each(Object.keys(requests) as (keyof typeof requests)[])('%s', async (way) => {
      const { kind, object, subResource } = requests[way](row.existingBindingLabels) as {
        kind: object;
        object: { metadata?: { labels?: Record<string, string> } };
        subResource?: string;
      };
      const request = {
        kind,
        resource: { group: '', version: 'v1', resource: 'pods' },
        ...(subResource === undefined ? {} : { subResource }),
        namespace: topology.namespace,
        name: topology.podName,
        operation: 'CREATE',
        object,
      };
      const args = ['--cluster-state', stateWith(row.targetNodeLabels), '--plugins', 'PodTopologyLabels'];
      const { code, response } = await review(request, [...args, '--feature-gates', `PodTopologyLabelsAdmission=${!row.featureDisabled}`]);
      expect(code).toBe(0);
      expect(response!.allowed).toBe(true);
      expect(labelsAfter(object, response!)).toEqual(row.expectedBindingLabels ?? {});
    });
  });
});

describe('as a user meets it', () => {
  const gpuPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'train', namespace: 'team-a' },
    spec: { nodeSelector: { pool: 'gpu' }, tolerations: [{ key: 'pool', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
  };
  const teamA = () =>
    namespaceState('team-a', {
      'scheduler.alpha.kubernetes.io/node-selector': 'pool=general',
      'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[{"key":"pool","operator":"Equal","value":"general"}]',
    });

  it("warn mode admits, with the rejection as a warning, both plugins in the chain's order", async () => {
    const { response } = await review(podRequest(gpuPod, 'team-a'), [
      '--cluster-state',
      teamA(),
      '--plugins',
      'PodNodeSelector,PodTolerationRestriction',
      '--plugin-mode',
      'PodNodeSelector=warn',
      '--plugin-mode',
      'PodTolerationRestriction=warn',
    ]);
    expect(response!.allowed).toBe(true);
    // Each rejection followed by its remedy, from the mutating and then the validating phase.
    const byPhase = [
      '[PodNodeSelector] pods "train" is forbidden: pod node label selector conflicts with its namespace node label selector',
      `nodeSelector pool=gpu conflicts with namespace "team-a"'s node selector (pool=general): drop it from the pod; the namespace's labels are added`,
      '[PodTolerationRestriction] pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
      `toleration {"key":"pool","operator":"Equal","value":"gpu","effect":"NoSchedule"} is not in namespace "team-a"'s tolerationsWhitelist: remove it from the pod, or have the whitelist cover it`,
    ];
    expect(response!.warnings).toEqual([...byPhase, ...byPhase]);
  });

  it('enforce mode denies at the first plugin, PodNodeSelector', async () => {
    const { response } = await review(podRequest(gpuPod, 'team-a'), [
      '--cluster-state',
      teamA(),
      '--plugins',
      'PodNodeSelector,PodTolerationRestriction',
    ]);
    expect(response!.status?.message).toBe(
      'pods "train" is forbidden: pod node label selector conflicts with its namespace node label selector',
    );
  });

  it('a namespace missing from the cluster state fails as upstream fails it', async () => {
    const { response } = await review(podRequest(gpuPod, 'team-b'), ['--cluster-state', teamA(), '--plugins', 'PodNodeSelector']);
    expect(response!.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: namespace team-b does not exist',
    });
  });

  it("a malformed annotation fails the request with upstream's (Go's) error", async () => {
    const state = namespaceState('team-a', {
      'scheduler.alpha.kubernetes.io/defaultTolerations': '[{"key": "pool", "operator": "Equal", "value": "general",}]',
    });
    const { response } = await review(podRequest(gpuPod, 'team-a'), ['--cluster-state', state, '--plugins', 'PodTolerationRestriction']);
    expect(response!.status).toEqual({
      metadata: {},
      status: 'Failure',
      code: 500,
      message: "invalid character '}' looking for beginning of object key string",
    });
  });

  it('a legacy PodNodeSelector file works as kube-apiserver reads it', async () => {
    const legacy = write('podnodeselector.yaml', 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: pool=general\n');
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: {} };
    const { response } = await review(podRequest(pod, 'plain'), [
      '--cluster-state',
      namespaceState('plain'),
      '--plugins',
      'PodNodeSelector',
      '--admission-control-config-file',
      legacy,
    ]);
    expect(patched(pod, response!).spec.nodeSelector).toEqual({ pool: 'general' });
  });

  it.each([
    {
      name: 'a selector that does not parse',
      plugins: [{ name: 'PodNodeSelector', configuration: { podNodeSelectorPluginConfig: { 'team-a': 'pool' } } }],
      message:
        /^admission-chain: .*admission\.yaml plugins\[0\]\.configuration: plugin PodNodeSelector: podNodeSelectorPluginConfig\.team-a: invalid selector: \[pool\]\n$/,
    },
    {
      name: 'a bad toleration',
      plugins: [
        {
          name: 'PodTolerationRestriction',
          configuration: {
            apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1',
            kind: 'Configuration',
            whitelist: [{ operator: 'Equal', value: 'x' }],
          },
        },
      ],
      message:
        /^admission-chain: .*admission\.yaml plugins\[0\]\.configuration: plugin PodTolerationRestriction: whitelist\[0\]\.operator: Invalid value: "Equal": operator must be Exists when `key` is empty/,
    },
    {
      name: 'an unknown field',
      plugins: [{ name: 'PodNodeSelector', paths: 'x' }],
      message: /^admission-chain: admission configuration .*admission\.yaml: strict decoding error: unknown field "plugins\[0\]\.paths"\n$/,
    },
  ])('$name: exit 2, one line naming the file, the plugin and the field, nothing printed', async ({ plugins, message }) => {
    const config = admissionConfiguration(plugins as never);
    const { code, response, stderr } = await review(podRequest(gpuPod, 'team-a'), [
      '--cluster-state',
      teamA(),
      '--plugins',
      'PodNodeSelector,PodTolerationRestriction',
      '--admission-control-config-file',
      config,
    ]);
    expect(code).toBe(2);
    expect(response).toBeUndefined();
    expect(stderr).toMatch(message);
  });

  it('configuration for plugins it does not run: one warning each, and the review goes on', async () => {
    const config = admissionConfiguration([
      { name: 'PodSecurity', configuration: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration' } },
      {
        name: 'PodTolerationRestriction',
        configuration: { apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration' },
      },
    ]);
    const { code, response, stderr } = await review(podRequest(gpuPod, 'team-a'), [
      '--cluster-state',
      teamA(),
      '--plugins',
      'PodNodeSelector',
      '--plugin-mode',
      'PodNodeSelector=audit',
      '--admission-control-config-file',
      config,
    ]);
    expect(code).toBe(0);
    expect(response!.allowed).toBe(true);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^admission-chain: warning: admission configuration .*: plugins\[0\] configures PodSecurity, which admission-chain does not implement: ignored$/,
      ),
      expect.stringMatching(
        /^admission-chain: warning: admission configuration .*: plugins\[1\] configures PodTolerationRestriction, which is not enabled: ignored$/,
      ),
    ]);
  });
});

describe('the fixtures in test/fixtures/namespace-plugins, through the real command line', () => {
  const fixtures = 'test/fixtures/namespace-plugins';
  const args = (...plugins: string[]) => [
    '--cluster-state',
    `${fixtures}/cluster-state.yaml`,
    '--plugins',
    plugins.join(','),
    '--admission-control-config-file',
    `${fixtures}/admission.yaml`,
  ];

  it("a pod in team-a gets its namespace's node selector and tolerations, and the section of EventRateLimit, not enabled, is reported", async () => {
    const result = await runMain(['review', `${fixtures}/pod-team-a.json`, ...args('PodNodeSelector', 'PodTolerationRestriction')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^admission-chain: warning: admission configuration .*admission\.yaml: plugins\[2\] configures EventRateLimit, which is not enabled: ignored\n$/,
    );
    const response = JSON.parse(result.stdout).response as Response;
    expect(JSON.parse(Buffer.from(response.patch!, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/nodeSelector', value: { pool: 'team-a' } },
      {
        op: 'add',
        path: '/spec/tolerations',
        value: [
          { key: 'pool', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
        ],
      },
    ]);
  });

  it('a pod in an unannotated namespace gets the configured cluster defaults', async () => {
    const response = JSON.parse(
      (await runMain(['review', `${fixtures}/pod-shared.json`, ...args('PodNodeSelector', 'PodTolerationRestriction')])).stdout,
    ).response as Response;
    expect(JSON.parse(Buffer.from(response.patch!, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/nodeSelector', value: { pool: 'general' } },
      { op: 'add', path: '/spec/tolerations', value: [{ key: 'pool', operator: 'Equal', value: 'general', effect: 'NoSchedule' }] },
    ]);
  });

  it('a pod asking for another pool is denied by PodNodeSelector', async () => {
    const response = JSON.parse(
      (
        await runMain([
          'review',
          `${fixtures}/pod-team-a-gpu.json`,
          ...args('PodNodeSelector', 'PodTolerationRestriction', 'ExtendedResourceToleration'),
        ])
      ).stdout,
    ).response as Response;
    expect(response.status).toMatchObject({
      code: 403,
      message: 'pods "train" is forbidden: pod node label selector conflicts with its namespace node label selector',
    });
  });

  it('a Service claiming an external IP is denied by DenyServiceExternalIPs', async () => {
    const response = JSON.parse(
      (
        await runMain([
          'review',
          `${fixtures}/service-external-ips.json`,
          '--cluster-state',
          `${fixtures}/cluster-state.yaml`,
          '--plugins',
          'DenyServiceExternalIPs',
        ])
      ).stdout,
    ).response as Response;
    expect(response.status).toMatchObject({
      code: 403,
      message: 'services "intercept" is forbidden: Use of external IPs is denied by admission control',
    });
  });
});
