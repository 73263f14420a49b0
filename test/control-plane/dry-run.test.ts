// The `kubectl apply --dry-run=server` examples of docs/deploy.md, run with the real kubectl against a
// real kube-apiserver, which admits every write through the chart-rendered webhook configurations
// and our webhook started from the chart's own Deployment args. Each case asserts kubectl's exit
// code and output, and what kube-apiserver sent the webhooks (or that it sent nothing).
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { blockOwnerDeletionDenied, clusterState, deniedByValidatingWebhook, ownerDenialWarnings } from '../kubectl/scenarios.ts';
import { runMain } from '../support/cli.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster, dryRunPodPullPolicies } from './scenarios.ts';

describeWithControlPlane('kubectl apply --dry-run=server, chart defaults (AlwaysPullImages and ORPE enforcing)', () => {
  let cluster: RealCluster;
  beforeAll(async () => {
    cluster = await demoRealCluster();
  });
  afterAll(() => cluster?.close());

  const callsDuring = async (run: () => Promise<unknown>) => {
    const before = cluster.webhookCalls.length;
    await run();
    return cluster.webhookCalls.slice(before);
  };

  it('an allowed pod is created in dry run, mutated to imagePullPolicy Always, and nothing is stored', async () => {
    let result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
    expect(result).toEqual({ code: 0, stdout: 'pod/web created (server dry run)\n', stderr: '' });

    const calls = await callsDuring(async () => {
      result = await dryRunPodPullPolicies(cluster);
    });
    expect(result).toEqual({ code: 0, stdout: 'Always', stderr: '' });
    // Mutating first, then validating the mutated pod; the review is what kube-apiserver sends.
    expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', 'validate.admission-chain.io']);
    expect(calls[0]?.review.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'admission-chain-demo',
      name: 'web',
      operation: 'CREATE',
      dryRun: true,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'], fieldManager: 'kubectl-client-side-apply' },
      userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
    });
    expect(calls[0]?.review.request?.object).toMatchObject({ spec: { containers: [{ imagePullPolicy: 'IfNotPresent' }] } });
    expect(calls[1]?.review.request?.object).toMatchObject({ spec: { containers: [{ imagePullPolicy: 'Always' }] } });
    expect(calls[0]?.review.request?.uid).not.toBe(calls[1]?.review.request?.uid);

    const yaml = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'yaml');
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/\n {4}imagePullPolicy: Always\n/);

    const get = await cluster.kubectl('get', 'pod', 'web', '-n', 'admission-chain-demo');
    expect(get).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "web" not found\n' });
  });

  it('allows an ownerReference without blockOwnerDeletion for a scoped user', async () => {
    const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', 'examples/configmap-owner-allowed.yaml');
    expect(result).toEqual({ code: 0, stdout: 'configmap/owned-config created (server dry run)\n', stderr: '' });
  });

  it.each([
    ['a ConfigMap (examples/configmap-owner-denied.yaml)', 'examples/configmap-owner-denied.yaml', 'configmaps', 'owned-config'],
    ['a pod (mutated by AlwaysPullImages, then denied by ORPE)', 'test/kubectl/fixtures/pod-owner-denied.yaml', 'pods', 'owned-web'],
  ])(
    'denies %s that sets blockOwnerDeletion, with the upstream message and kubectl printing the explanation',
    async (_what, file, resource, name) => {
      const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `${ownerDenialWarnings}Error from server (Forbidden): error when creating "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied(resource, name))}\n`,
      });
    },
  );

  it('the commands kubectl printed create exactly the Role and RoleBinding that admission-chain explain gives offline', async () => {
    const denied = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', 'examples/configmap-owner-denied.yaml');
    const commands = denied.stderr
      .split('\n')
      .filter((line) => line.startsWith('Warning: kubectl create '))
      .map((line) => line.slice('Warning: kubectl '.length).split(' '));
    expect(commands.map((c) => c.slice(0, 2).join(' '))).toEqual(['create role', 'create rolebinding']);
    const created: unknown[] = [];
    for (const args of commands) {
      const result = await cluster.kubectl(...args, '--dry-run=client', '-o', 'json');
      expect(result.code, result.stderr).toBe(0);
      const object = JSON.parse(result.stdout) as { metadata: Record<string, unknown> };
      delete object.metadata.creationTimestamp;
      created.push(object);
    }
    const state = join(await mkdtemp(join(tmpdir(), 'explain-state-')), 'state.yaml');
    await writeFile(state, clusterState.map((f) => readFileSync(f, 'utf8')).join('\n---\n'));
    const explained = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      state,
      '-o',
      'yaml',
    ]);
    expect(explained.code, explained.stderr).toBe(0);
    expect(created).toEqual(parseAllDocuments(explained.stdout).map((d) => d.toJS()));
  });

  describe('the UPDATE path: an existing object gains blockOwnerDeletion', () => {
    beforeAll(async () => {
      for (const file of ['examples/configmap-owner-allowed.yaml', 'test/kubectl/fixtures/widget.yaml']) {
        const created = await cluster.kubectl('apply', '-f', file);
        expect(created.code, created.stderr).toBe(0);
      }
    });

    it.each([
      ['ConfigMap, strategic merge patch', 'examples/configmap-owner-denied.yaml', 'configmaps', 'owned-config', 'configmap/owned-config'],
      [
        'custom resource, JSON merge patch',
        'test/kubectl/fixtures/widget-owner-denied.yaml',
        'widgets.example.com',
        'gear',
        'widget.example.com/gear',
      ],
    ])('%s: denied for the scoped user, allowed for an admin', async (_what, file, resource, name, printed) => {
      const calls = await callsDuring(async () => {
        const denied = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
        expect(denied.code).toBe(1);
        expect(denied.stderr.startsWith(`${ownerDenialWarnings}Error from server (Forbidden): error when applying patch:\n`)).toBe(true);
        expect(denied.stderr).toContain(
          `error when patching "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied(resource, name))}\n`,
        );
      });
      expect(calls).toHaveLength(1);
      const request = calls[0]!.review.request!;
      expect(request).toMatchObject({
        operation: 'UPDATE',
        name,
        userInfo: { username: 'demo-user', groups: ['system:authenticated'] },
        options: { kind: 'UpdateOptions', dryRun: ['All'] },
      });
      expect(request.oldObject?.metadata?.ownerReferences?.[0]?.blockOwnerDeletion).toBeUndefined();
      expect(request.object?.metadata?.ownerReferences?.[0]).toMatchObject({ name: 'web', blockOwnerDeletion: true });

      // Your own (cluster-admin) identity, and an impersonated member of the platform-admins group.
      for (const identity of [[], ['--as=platform-admin', '--as-group=platform-admins']]) {
        const admin = await cluster.kubectl('apply', '--dry-run=server', ...identity, '-f', file);
        expect(admin, identity.join(' ')).toEqual({ code: 0, stdout: `${printed} configured (server dry run)\n`, stderr: '' });
      }
    });
  });

  it('a namespace that opted out is created without calling the webhooks, and its pods pass untouched', async () => {
    const calls = await callsDuring(async () => {
      const namespace = await cluster.kubectl('apply', '-f', 'test/kubectl/fixtures/opted-out-namespace.yaml');
      expect(namespace).toEqual({ code: 0, stdout: 'namespace/opted-out created\n', stderr: '' });
      const pod = await cluster.kubectl(
        'apply',
        '--dry-run=server',
        '-f',
        'test/kubectl/fixtures/pod-opted-out.yaml',
        '-o',
        'jsonpath={.spec.containers[*].imagePullPolicy}',
      );
      expect(pod).toEqual({ code: 0, stdout: 'IfNotPresent', stderr: '' });
    });
    expect(calls).toEqual([]);
  });

  it('labelling the demo namespace with the opt-out label takes it out of admission until the label is removed', async () => {
    const label = await cluster.kubectl('label', 'namespace', 'admission-chain-demo', 'admission-chain.io/disabled=true');
    expect(label).toEqual({ code: 0, stdout: 'namespace/admission-chain-demo labeled\n', stderr: '' });
    try {
      const calls = await callsDuring(async () => {
        const pod = await cluster.kubectl(
          'apply',
          '--dry-run=server',
          '-f',
          'examples/pod.yaml',
          '-o',
          'jsonpath={.spec.containers[*].imagePullPolicy}',
        );
        expect(pod).toEqual({ code: 0, stdout: 'IfNotPresent', stderr: '' });
      });
      expect(calls).toEqual([]);
    } finally {
      const unlabel = await cluster.kubectl('label', 'namespace', 'admission-chain-demo', 'admission-chain.io/disabled-');
      expect(unlabel).toEqual({ code: 0, stdout: 'namespace/admission-chain-demo unlabeled\n', stderr: '' });
    }
    const pod = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '-f',
      'examples/pod.yaml',
      '-o',
      'jsonpath={.spec.containers[*].imagePullPolicy}',
    );
    expect(pod).toEqual({ code: 0, stdout: 'Always', stderr: '' });
  });

  it('an unreachable webhook: the mutating one is ignored (Ignore), the validating one fails the request (Fail)', async () => {
    cluster.front.behaviour = 'reset';
    try {
      const calls = await callsDuring(async () => {
        const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(
          `Error from server (InternalError): error when creating "examples/pod.yaml": Internal error occurred: failed calling webhook "validate.admission-chain.io": ` +
            `failed to call webhook: Post "${cluster.front.url}/validate?timeout=10s": EOF\n`,
        );
      });
      // kube-apiserver tried both: the mutating failure was ignored, the validating one was not.
      expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', 'validate.admission-chain.io']);
    } finally {
      cluster.front.behaviour = 'forward';
    }
  });

  it.each([
    [
      'answers garbage',
      'garbage' as const,
      /failed calling webhook "validate.admission-chain.io": failed to call webhook: couldn't get version\/kind; json parse error: invalid character 'o' in literal null \(expecting 'u'\)\n$/,
    ],
    [
      'answers 500',
      'error-500' as const,
      /failed calling webhook "validate.admission-chain.io": failed to call webhook: an error on the server \("the front failed on purpose"\) has prevented the request from succeeding/,
    ],
  ])('a webhook that %s fails the request under failurePolicy Fail', async (_what, behaviour, message) => {
    cluster.front.behaviour = behaviour;
    try {
      const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
    } finally {
      cluster.front.behaviour = 'forward';
    }
  });

  it('a webhook slower than timeoutSeconds fails the request at the timeout the chart sets', { timeout: 60_000 }, async () => {
    const validating = (await cluster.configurations()).find((c) => c.kind === 'ValidatingWebhookConfiguration')!;
    const timeoutSeconds = validating.webhooks?.[0]?.timeoutSeconds;
    expect(timeoutSeconds).toBeGreaterThan(0);
    cluster.front.behaviour = 'stall';
    cluster.front.only = '/validate';
    try {
      const started = Date.now();
      const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
      const elapsed = Date.now() - started;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /failed calling webhook "validate.admission-chain.io": failed to call webhook: Post ".*\/validate\?timeout=\d+s": context deadline exceeded/,
      );
      expect(elapsed).toBeGreaterThanOrEqual(timeoutSeconds! * 1000);
    } finally {
      cluster.front.behaviour = 'forward';
      delete cluster.front.only;
    }
  });

  it("the chart's matchConditions keep pods/status, leases and access reviews from the webhook, as kube-apiserver evaluates them", async () => {
    await cluster.kubectlOk('apply', '-f', 'examples/pod.yaml');
    try {
      const calls = await callsDuring(async () => {
        await cluster.kubectlOk(
          'patch',
          'pod',
          'web',
          '-n',
          'admission-chain-demo',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"message":"from the kubelet"}}',
        );
        await cluster.kubectlOk('apply', '--dry-run=server', '-f', 'test/control-plane/fixtures/lease-owned.yaml');
        await cluster.kubectlOk('auth', 'can-i', 'create', 'pods', '-n', 'admission-chain-demo');
      });
      expect(calls).toEqual([]);
      // The same kind of write with an ownerReference does reach it, and is denied.
      const denied = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', 'examples/configmap-owner-denied.yaml');
      expect(denied.code).toBe(1);
    } finally {
      await cluster.kubectlOk('delete', 'pod', 'web', '-n', 'admission-chain-demo', '--wait=false');
    }
  });
});

describeWithControlPlane('kubectl apply --dry-run=server, ORPE in warn mode and StorageObjectInUseProtection enabled', () => {
  let cluster: RealCluster;
  beforeAll(async () => {
    cluster = await demoRealCluster({
      plugins: {
        OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'warn' },
        StorageObjectInUseProtection: { enabled: true, mode: 'enforce' },
      },
    });
  });
  afterAll(() => cluster?.close());

  it.each([
    ['examples/configmap-owner-denied.yaml', 'configmap/owned-config', 'configmaps', 'owned-config'],
    ['test/kubectl/fixtures/pod-owner-denied.yaml', 'pod/owned-web', 'pods', 'owned-web'],
  ])('%s is created, and kubectl prints the rejection as a warning', async (file, printed, resource, name) => {
    const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
    expect(result).toEqual({
      code: 0,
      stdout: `${printed} created (server dry run)\n`,
      stderr: `Warning: [OwnerReferencesPermissionEnforcement] ${blockOwnerDeletionDenied(resource, name)}\n${ownerDenialWarnings}`,
    });
  });

  it('a claim gains the pvc-protection finalizer', async () => {
    const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pvc.yaml', '-o', 'jsonpath={.metadata.finalizers}');
    expect(result).toEqual({ code: 0, stdout: '["kubernetes.io/pvc-protection"]', stderr: '' });
  });
});
