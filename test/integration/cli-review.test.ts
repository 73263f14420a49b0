// `admission-chain review` and `authorize` as a user runs them: files, stdin, exit codes, messages,
// in-process through main(); one test per command runs the real process.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runMain, spawnCli } from '../support/cli.ts';
import { podReview } from '../support/reviews.ts';

const state = 'examples/cluster-state.yaml';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'admission-chain-cli-'));
});

function decodePatch(patch: string): unknown {
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
}

describe('review', () => {
  it('runs mutating then validating on an AdmissionReview from stdin, as --dry-run=server would', async () => {
    // The real process, once for this command.
    const result = await runCli(['review', '--cluster-state', state], { stdin: JSON.stringify(podReview({ pullPolicy: 'IfNotPresent' })) });
    expect(result.code).toBe(0);
    const review = JSON.parse(result.stdout);
    expect(review.response.allowed).toBe(true);
    expect(decodePatch(review.response.patch)).toEqual([{ op: 'replace', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }]);
  });

  it('shows the validating rejection when only the validating phase runs, and still exits 0', async () => {
    const file = join(dir, 'review.yaml');
    await writeFile(file, JSON.stringify(podReview({ pullPolicy: 'Never' })));
    const result = await runMain(['review', file, '--cluster-state', state, '--phase', 'validating']);
    expect(result.code).toBe(0);
    const review = JSON.parse(result.stdout);
    expect(review.response).toMatchObject({
      allowed: false,
      status: {
        message: 'pods "web" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"',
      },
    });
  });

  it.each(['review', 'json'])('reviews an AdmissionReview without userInfo (-o %s), as an anonymous request', async (output) => {
    const review = podReview({ pullPolicy: 'Never' }) as { request: Record<string, unknown> };
    delete review.request.userInfo;
    const result = await runMain(['review', '--cluster-state', state, '--phase', 'validating', '-o', output], {
      stdin: JSON.stringify(review),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Unsupported value: \\"Never\\"');
  });

  it('builds the request from a manifest and a user', async () => {
    const manifest = join(dir, 'pvc.yaml');
    await writeFile(
      manifest,
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n',
    );
    const result = await runMain([
      'review',
      '-f',
      manifest,
      '--user',
      'alice',
      '--groups',
      'dev,ops',
      '--namespace',
      'team-a',
      '--cluster-state',
      state,
      '--plugins',
      'StorageObjectInUseProtection',
    ]);
    expect(result.code).toBe(0);
    const review = JSON.parse(result.stdout);
    expect(review.request).toMatchObject({
      operation: 'CREATE',
      namespace: 'team-a',
      resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      userInfo: { username: 'alice', groups: ['dev', 'ops'] },
      dryRun: true,
    });
    expect(decodePatch(review.response.patch)).toEqual([
      { op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] },
    ]);
  });

  it('answers in v1beta1 when asked in v1beta1', async () => {
    const result = await runMain(['review', '-', '--cluster-state', state], {
      stdin: JSON.stringify(podReview({ apiVersion: 'admission.k8s.io/v1beta1', pullPolicy: 'Always' })),
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ apiVersion: 'admission.k8s.io/v1beta1', response: { allowed: true } });
  });

  it.each([
    [['review', '--cluster-state', state], 'not json: [', 'stdin: not valid JSON or YAML'],
    [
      ['review', '--cluster-state', state],
      '{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"}',
      'stdin: invalid AdmissionReview: AdmissionReview has no request',
    ],
    [['review', '--cluster-state', state], '', 'stdin: no document found'],
    [['review', '/nonexistent.json', '--cluster-state', state], '', 'cannot read /nonexistent.json'],
    [['review', '--cluster-state', '/nonexistent-state.yaml'], '{}', 'cannot read cluster state /nonexistent-state.yaml'],
    [['review', '--cluster-state', state, '--plugins', 'Nope'], '{}', 'unknown admission plugin "Nope"'],
  ])('%j with bad input fails with one line on stderr', async (args, stdin, message) => {
    const result = await runMain(args, { stdin });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a missing required flag as a usage error (exit 2)', async () => {
    const result = await runMain(['review'], { stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--cluster-state <file>' not specified");
  });
});

describe('the command line', () => {
  it('prints its version', async () => {
    const result = await runMain(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('rejects an unknown command as a usage error', async () => {
    const result = await runMain(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('stops without a stack trace, exiting 1, when its reader closes the pipe early (| head)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-pipe-'));
    const pod = (i: number) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: default}\nspec: {containers: [{name: a, image: nginx}]}\n`;
    await writeFile(join(dir, 'pods.yaml'), Array.from({ length: 2000 }, (_, i) => pod(i)).join('---\n'));
    const child = spawnCli(['audit', '--cluster-state', state, dir, '-o', 'json']);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // The first chunk read, the reader goes away, as head does.
    child.stdout!.once('data', () => child.stdout!.destroy());
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
  });
});

describe('authorize', () => {
  it('answers yes with the reason, exit 0', async () => {
    // The real process, once for this command.
    const result = await runCli(['authorize', '--cluster-state', state, '--as', 'alice', '-n', 'default', 'create', 'pods']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(
      'yes - RBAC: allowed by RoleBinding "alice-workload-editor/default" of Role "workload-editor" to User "alice"',
    );
  });

  it('answers no with exit 1', async () => {
    const result = await runMain([
      'authorize',
      '--cluster-state',
      state,
      '--as',
      'alice',
      '-n',
      'default',
      'update',
      'deployments.apps/finalizers',
      'web',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toMatch(/^no/);
  });

  it('fills in the status of a SubjectAccessReview file', async () => {
    const sar = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'bob',
        groups: ['platform-admins'],
        resourceAttributes: { verb: 'update', group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' },
      },
    };
    const result = await runMain(['authorize', '--cluster-state', state], { stdin: JSON.stringify(sar) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "platform-admins" of ClusterRole "platform-admin" to Group "platform-admins"',
    });
  });
});
