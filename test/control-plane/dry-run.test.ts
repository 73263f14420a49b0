// The `kubectl apply --dry-run=server` examples of docs/deploy.md, run with the real kubectl against the
// stand-in API server, which admits every write through the chart-rendered webhook configurations
// and our webhook started from the chart's own Deployment args. Each case asserts kubectl's exit
// code and output, and what the webhooks were (or were not) sent.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runMain } from '../support/cli.ts';
import type { PretendCluster } from './cluster.ts';
import { blockOwnerDeletionDenied, clusterState, deniedByValidatingWebhook, demoCluster, ownerDenialWarnings } from './scenarios.ts';

describe('kubectl apply --dry-run=server, chart defaults (AlwaysPullImages and ORPE enforcing)', () => {
  let cluster: PretendCluster;
  beforeAll(async () => {
    cluster = await demoCluster();
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
      result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
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
      userInfo: { username: 'stand-in-admin', groups: ['system:masters', 'system:authenticated'] },
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
  ])('denies %s that sets blockOwnerDeletion, with the upstream message and kubectl printing the explanation', async (_what, file, resource, name) => {
    const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `${ownerDenialWarnings}Error from server (Forbidden): error when creating "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied(resource, name))}\n`,
    });
  });

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
    const explained = await runMain(['explain', '-f', 'examples/configmap-owner-denied.yaml', '--user', 'demo-user', '--cluster-state', state, '-o', 'yaml']);
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
      ['custom resource, JSON merge patch', 'test/kubectl/fixtures/widget-owner-denied.yaml', 'widgets.example.com', 'gear', 'widget.example.com/gear'],
    ])('%s: denied for the scoped user, allowed for an admin', async (_what, file, resource, name, printed) => {
      const calls = await callsDuring(async () => {
        const denied = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
        expect(denied.code).toBe(1);
        expect(denied.stderr.startsWith(`${ownerDenialWarnings}Error from server (Forbidden): error when applying patch:\n`)).toBe(true);
        expect(denied.stderr).toContain(`error when patching "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied(resource, name))}\n`);
      });
      expect(calls).toHaveLength(1);
      const request = calls[0]!.review.request!;
      expect(request).toMatchObject({ operation: 'UPDATE', name, userInfo: { username: 'demo-user', groups: ['system:authenticated'] }, options: { kind: 'UpdateOptions', dryRun: ['All'] } });
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
      const pod = await cluster.kubectl('apply', '--dry-run=server', '-f', 'test/kubectl/fixtures/pod-opted-out.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
      expect(pod).toEqual({ code: 0, stdout: 'IfNotPresent', stderr: '' });
    });
    expect(calls).toEqual([]);
  });

  it('labelling the demo namespace with the opt-out label takes it out of admission until the label is removed', async () => {
    const label = await cluster.kubectl('label', 'namespace', 'admission-chain-demo', 'admission-chain.io/disabled=true');
    expect(label).toEqual({ code: 0, stdout: 'namespace/admission-chain-demo labeled\n', stderr: '' });
    try {
      const calls = await callsDuring(async () => {
        const pod = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
        expect(pod).toEqual({ code: 0, stdout: 'IfNotPresent', stderr: '' });
      });
      expect(calls).toEqual([]);
    } finally {
      const unlabel = await cluster.kubectl('label', 'namespace', 'admission-chain-demo', 'admission-chain.io/disabled-');
      expect(unlabel).toEqual({ code: 0, stdout: 'namespace/admission-chain-demo unlabeled\n', stderr: '' });
    }
    const pod = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].imagePullPolicy}');
    expect(pod).toEqual({ code: 0, stdout: 'Always', stderr: '' });
  });

  it('an unreachable webhook: the mutating one is ignored (Ignore), the validating one fails the request (Fail)', async () => {
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    cluster.routeServiceTo(port);
    try {
      const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `Error from server (InternalError): error when creating "examples/pod.yaml": Internal error occurred: failed calling webhook "validate.admission-chain.io": ` +
          `failed to call webhook: Post "https://ac-admission-chain.admission-chain.svc:443/validate?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused\n`,
      );
    } finally {
      cluster.routeServiceTo();
    }
  });
});

describe('kubectl apply --dry-run=server, ORPE in warn mode and StorageObjectInUseProtection enabled', () => {
  let cluster: PretendCluster;
  beforeAll(async () => {
    cluster = await demoCluster({
      plugins: { OwnerReferencesPermissionEnforcement: { enabled: true, mode: 'warn' }, StorageObjectInUseProtection: { enabled: true, mode: 'enforce' } },
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
