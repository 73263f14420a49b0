// `admission-chain explain` offline, as a user runs it: the README's ORPE example from a manifest,
// an AdmissionReview and `review`'s own output as input, `--apply-to` making the same review
// allowed, `-o yaml`, the other plugins' remedies, warn mode, and bad input. In-process through
// main() for speed, and once through the real command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli, runMain } from '../support/cli.ts';
import { podReview } from '../support/reviews.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const { dir, write } = scratchFiles('explain');
/** The README's demo state: the examples' cluster state, the demo namespace and demo-user's Role. */
const demoState = () =>
  write(
    'demo-state.yaml',
    ['examples/cluster-state.yaml', 'examples/namespace.yaml', 'examples/demo-user-rbac.yaml']
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n---\n'),
  );

const ownerDenial = `configmaps "owned-config" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;

describe("explain, the README's ORPE example", () => {
  it("prints the decision with upstream's message, what is missing, the nearest grant, the commands and the YAML", async () => {
    const result = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      demoState(),
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [text, ...documents] = result.stdout.split(/\n+---\n/);
    expect(text).toBe(
      [
        `denied by OwnerReferencesPermissionEnforcement (403): ${ownerDenial}`,
        '',
        'why (OwnerReferencesPermissionEnforcement):',
        '  user "demo-user" may not update deployments/finalizers (apps) "web" in namespace "admission-chain-demo"',
        '  closest existing grant: RoleBinding "demo-user/admission-chain-demo" of Role "demo-user" to User "demo-user" allows get,list on deployments (apps), not update on deployments/finalizers',
        '  the smallest grant: Role "update-deployments-finalizers-web" and RoleBinding "update-deployments-finalizers-web-demo-user"',
        '',
        'to grant it:',
        '  kubectl create role update-deployments-finalizers-web -n admission-chain-demo --verb=update --resource=deployments.apps/finalizers --resource-name=web',
        '  kubectl create rolebinding update-deployments-finalizers-web-demo-user -n admission-chain-demo --role=update-deployments-finalizers-web --user=demo-user',
      ].join('\n'),
    );
    expect(documents.map((d) => parseAllDocuments(d)[0]!.toJS().kind)).toEqual(['Role', 'RoleBinding']);
  });

  it('--apply-to writes the cluster state with the Role and binding added: the same review is then allowed', async () => {
    const state = demoState();
    const granted = join(dir, 'granted.yaml');
    const args = ['-f', 'examples/configmap-owner-denied.yaml', '--user', 'demo-user'];
    const explained = await runMain(['explain', ...args, '--cluster-state', state, '--apply-to', granted]);
    expect(explained.code).toBe(0);
    expect(explained.stderr).toBe(
      `admission-chain: wrote ${granted}: added Role admission-chain-demo/update-deployments-finalizers-web, RoleBinding admission-chain-demo/update-deployments-finalizers-web-demo-user\n`,
    );
    // The original text is kept as it was, comments included.
    expect(readFileSync(granted, 'utf8').startsWith(readFileSync(state, 'utf8').trimEnd())).toBe(true);
    const reviewed = JSON.parse((await runMain(['review', ...args, '--cluster-state', granted])).stdout);
    expect(reviewed.response.allowed).toBe(true);
    expect((await runMain(['explain', ...args, '--cluster-state', granted])).stdout).toBe('allowed\n');
    // Applied in place, the request is allowed and there is nothing left to add.
    const inPlace = await runMain(['explain', ...args, '--cluster-state', granted, '--apply-to', granted]);
    expect(inPlace).toMatchObject({ code: 0, stdout: 'allowed\n', stderr: `admission-chain: wrote ${granted}: nothing to add\n` });
  });

  it('--apply-to leaves an object the state already has as it is, and adds the rest', async () => {
    const role = (
      await runMain([
        'explain',
        '-f',
        'examples/configmap-owner-denied.yaml',
        '--user',
        'demo-user',
        '--cluster-state',
        demoState(),
        '-o',
        'yaml',
      ])
    ).stdout.split('---\n')[0]!;
    const state = write('with-role.yaml', `${readFileSync(demoState(), 'utf8')}\n---\n${role}`);
    const target = join(dir, 'with-binding.yaml');
    const result = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      state,
      '--apply-to',
      target,
    ]);
    expect(result.stderr).toBe(
      `admission-chain: ${state} already has Role admission-chain-demo/update-deployments-finalizers-web; left as it is\n` +
        `admission-chain: wrote ${target}: added RoleBinding admission-chain-demo/update-deployments-finalizers-web-demo-user\n`,
    );
    expect(
      (await runMain(['explain', '-f', 'examples/configmap-owner-denied.yaml', '--user', 'demo-user', '--cluster-state', target])).stdout,
    ).toBe('allowed\n');
  });

  it("reads an AdmissionReview, and review's own output, to the same explanation", async () => {
    const state = demoState();
    const reviewed = await runMain([
      'review',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      state,
    ]);
    const fromReviewOutput = await runMain(['explain', '-', '--cluster-state', state], { stdin: reviewed.stdout });
    const direct = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      state,
    ]);
    expect(fromReviewOutput.stdout).toBe(direct.stdout);
    const { request } = JSON.parse(reviewed.stdout);
    const file = write('review.json', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
    expect((await runMain(['explain', file, '--cluster-state', state])).stdout).toBe(direct.stdout);
    const withoutState = await runMain(['explain', file]);
    expect(withoutState.code).toBe(2);
    expect(withoutState.stderr).toContain("required option '--cluster-state <file>' not specified");
  });

  it('-o yaml prints only the objects to add, ready for kubectl apply -f -', async () => {
    const result = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      demoState(),
      '-o',
      'yaml',
    ]);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS());
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Role/update-deployments-finalizers-web',
      'RoleBinding/update-deployments-finalizers-web-demo-user',
    ]);
  });

  it('in warn mode the request is allowed, and explain says what would have denied it and why', async () => {
    const result = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      demoState(),
      '--plugin-mode',
      'OwnerReferencesPermissionEnforcement=warn',
    ]);
    expect(result.stdout).toMatch(
      /^allowed\n\nOwnerReferencesPermissionEnforcement \(warn mode\) would have denied it:\n {2}user "demo-user" may not update deployments\/finalizers/,
    );
  });
});

describe('explain in docs/deploy.md', () => {
  it('prints what the page shows, up to the YAML it elides', async () => {
    const page = readFileSync('docs/deploy.md', 'utf8');
    const section = page.slice(page.indexOf('### Offline: `admission-chain explain` and `authorize`'));
    const shown = /```console\n([\s\S]*?)\n…\n```/.exec(section)![1]!;
    const result = await runMain([
      'explain',
      '-f',
      'examples/configmap-owner-denied.yaml',
      '--user',
      'demo-user',
      '--cluster-state',
      demoState(),
    ]);
    expect(result.stdout.startsWith(`${shown}\n`)).toBe(true);
  });
});

describe('explain, other plugins', () => {
  it('a missing service account: the command and the object; --apply-to makes the pod admissible', async () => {
    const state = demoState();
    const pod = write(
      'pod.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: build, namespace: admission-chain-demo}\nspec: {serviceAccountName: builder, containers: [{name: c, image: busybox, imagePullPolicy: Always}]}\n',
    );
    const granted = join(dir, 'with-sa.yaml');
    const plugins = ['--enable-admission-plugins', 'ServiceAccount'];
    const result = await runMain(['explain', '-f', pod, '--cluster-state', state, '--apply-to', granted, ...plugins]);
    expect(result.stdout).toContain(
      'denied by ServiceAccount (403): pods "build" is forbidden: error looking up service account admission-chain-demo/builder: serviceaccount "builder" not found',
    );
    expect(result.stdout).toContain('  kubectl create serviceaccount builder -n admission-chain-demo');
    expect(result.stderr).toBe(`admission-chain: wrote ${granted}: added ServiceAccount admission-chain-demo/builder\n`);
    expect(JSON.parse((await runMain(['review', '-f', pod, '--cluster-state', state, ...plugins])).stdout).response.allowed).toBe(false);
    expect(JSON.parse((await runMain(['review', '-f', pod, '--cluster-state', granted, ...plugins])).stdout).response.allowed).toBe(true);
  });

  it('a pull policy that is not Always, with only the validating webhook: set Always, and the mutating webhook would have', async () => {
    const review = write('review.json', JSON.stringify(podReview({ pullPolicy: 'IfNotPresent' })));
    const result = await runMain(['explain', review, '--cluster-state', 'examples/cluster-state.yaml', '--phase', 'validating']);
    expect(result.stdout).toContain('spec.containers[0].imagePullPolicy is "IfNotPresent", not "Always"');
    expect(result.stdout).toContain("this server's mutating webhook sets Always (AlwaysPullImages runs in /mutate)");
    expect(result.stdout).not.toContain('---');
  });

  it('a denial with no known remedy says so', async () => {
    const pod = write(
      'rc-pod.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {runtimeClassName: missing, containers: [{name: c, image: busybox}]}\n',
    );
    const result = await runMain(['explain', '-f', pod, '--cluster-state', 'examples/cluster-state.yaml', '--plugins', 'RuntimeClass']);
    expect(result.stdout).toMatch(/^denied by RuntimeClass \(403\): [^\n]+\n\nno remedy is known for this denial\n$/);
  });
});

describe('explain, bad input', () => {
  it.each([
    [['explain', '-', '--cluster-state', 'examples/cluster-state.yaml'], '{ not json', /^admission-chain: stdin: not valid JSON or YAML/],
    [
      ['explain', '-f', 'examples/pod.yaml', '--cluster-state', '/nonexistent.yaml'],
      '',
      /^admission-chain: cannot read cluster state \/nonexistent.yaml/,
    ],
    [
      [
        'explain',
        '-f',
        'examples/configmap-owner-denied.yaml',
        '--user',
        'demo-user',
        '--cluster-state',
        'examples/cluster-state.yaml',
        '--apply-to',
        '/nonexistent/dir/x.yaml',
      ],
      '',
      /^admission-chain: cannot write \/nonexistent\/dir\/x.yaml/,
    ],
  ])('%j: one line on stderr, non-zero exit', async (args, stdin, message) => {
    const result = await runMain(args, { stdin });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('explain through the real command line', () => {
  it('prints the same as in-process', async () => {
    const state = demoState();
    const args = ['explain', '-f', 'examples/configmap-owner-denied.yaml', '--user', 'demo-user', '--cluster-state', state];
    const [child, inProcess] = await Promise.all([runCli(args), runMain(args)]);
    expect(child.code).toBe(0);
    expect(child.stdout).toBe(inProcess.stdout);
  });
});
