// The `authorize` command in-process through main(), against test/fixtures/rbac.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../support/cli.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/rbac/${name}`, import.meta.url));
const state = fixture('cluster-state.yaml');

const run = (args: string[], stdin = '') => runMain(['authorize', ...args], { stdin });

const warnings = [
  'Warning: ClusterRole "probes" rule 0: nonResourceURL "/healthz*" matches every path that starts with "/healthz", such as "/healthz-internal"; to match only "/healthz" and the paths below it, list "/healthz" and "/healthz/*"',
  'Warning: RoleBinding "team-a/dangling": clusterrole.rbac.authorization.k8s.io "does-not-exist" not found; it grants nothing',
  '',
].join('\n');

describe('authorize FILE', () => {
  it('prints the review with its status (YAML in, JSON out), exit 0', async () => {
    const result = await run([fixture('sar-allowed.yaml'), '--cluster-state', state]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(warnings);
    expect(JSON.parse(result.stdout)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        resourceAttributes: {
          namespace: 'team-a',
          verb: 'update',
          group: 'apps',
          resource: 'deployments',
          subresource: 'scale',
          name: 'web',
        },
      },
      status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-deploys/team-a" of Role "deployer" to User "alice"' },
    });
  });

  it('reads stdin for "-" and for no FILE; a denial is still exit 0 and carries the resolution error', async () => {
    const text = await import('node:fs/promises').then((fs) => fs.readFile(fixture('sar-denied.json'), 'utf8'));
    for (const args of [['-'], []]) {
      const result = await run([...args, '--cluster-state', state, '-q'], text);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(result.stdout).status).toEqual({
        allowed: false,
        reason: 'rbac: RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found',
      });
    }
  });

  it.each([
    [
      [fixture('sar-invalid.yaml')],
      '',
      'admission-chain: .authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified\n',
    ],
    [
      ['-'],
      'kind: Pod\napiVersion: v1\n',
      'admission-chain: stdin: expected apiVersion authorization.k8s.io/v1 and kind SubjectAccessReview, got "v1" and "Pod"\n',
    ],
    [['-'], '{ not json', 'admission-chain: stdin: not valid JSON or YAML: '],
    [['-'], '', 'admission-chain: stdin: no document found\n'],
    [['/nonexistent/sar.yaml'], '', 'admission-chain: cannot read /nonexistent/sar.yaml: '],
    [['a', 'b'], '', 'admission-chain: expected at most one FILE, got 2 arguments; to ask "can USER VERB RESOURCE", give --as USER\n'],
  ])('bad input %j: one line on stderr, exit 2', async (args, stdin, message) => {
    const result = await run([...args, '--cluster-state', state, '--quiet'], stdin);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a broken cluster state is one line, exit 2', async () => {
    const result = await run(['-', '--cluster-state', fixture('sar-denied.json')], '');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^admission-chain: .*sar-denied\.json: document 1 \(SubjectAccessReview ""\): unsupported kind SubjectAccessReview/,
    );
  });

  it("a missing --cluster-state is commander's usage error, exit 2", async () => {
    const result = await run(['-']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--cluster-state <file>' not specified");
  });
});

describe('authorize --as (can-i)', () => {
  it.each([
    [
      ['--as', 'alice', '-n', 'team-a', 'update', 'deployments.apps/scale', 'web'],
      0,
      'yes - RBAC: allowed by RoleBinding "alice-deploys/team-a" of Role "deployer" to User "alice"\n',
    ],
    [['--as', 'alice', '-n', 'team-b', 'update', 'deployments.apps'], 1, 'no\n'],
    [
      ['--as', 'alice', '-n', 'team-a', 'delete', 'pods'],
      1,
      'no - rbac: RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found\n',
    ],
    [
      ['--as', 'bob', '--as-group', 'viewers', '-A', 'get', 'pods/log'],
      0,
      'yes - RBAC: allowed by ClusterRoleBinding "everyone-views-pods" of ClusterRole "view-pods" to Group "viewers"\n',
    ],
    [['--as', 'bob', '--as-group', 'viewers', 'get', 'pods/status'], 1, 'no\n'],
    [
      ['--as', 'bob', 'get', '/healthz-internal'],
      0,
      'yes - RBAC: allowed by ClusterRoleBinding "probers" of ClusterRole "probes" to Group "system:authenticated"\n',
    ],
    [['--as', 'system:anonymous', 'get', '/healthz'], 1, 'no\n'],
    [
      ['--as', 'system:serviceaccount:team-a:ci', '-n', 'team-a', 'create', 'deployments.apps'],
      0,
      'yes - RBAC: allowed by RoleBinding "alice-deploys/team-a" of Role "deployer" to Group "system:serviceaccounts:team-a"\n',
    ],
    [['--as', 'system:serviceaccount:team-a:ci', '--as-group', 'other', '-n', 'team-a', 'create', 'deployments.apps'], 1, 'no\n'],
    [['--as', 'root', '--as-group', 'system:masters', 'delete', 'nodes'], 0, 'yes\n'],
  ])('%j -> exit %i', async (args, code, stdout) => {
    const result = await run([...args, '--cluster-state', state]);
    // The answer is the first line; after a "no" comes what would turn it into a yes.
    const [answer, ...rest] = result.stdout.split('\n');
    expect({ ...result, stdout: `${answer}\n` }).toEqual({ code, stdout, stderr: warnings });
    if (code === 0) expect(rest).toEqual(['']);
    else expect(rest.join('\n')).toMatch(/ may not [^\n]*\n[\s\S]*\nkind: (Cluster)?RoleBinding\n/);
  });

  it('after a "no", prints what is missing, the nearest grant, the kubectl commands and the YAML; adding it answers yes', async () => {
    const result = await run(['--as', 'alice', '-n', 'team-b', 'update', 'deployments.apps', '--cluster-state', state]);
    expect(result.code).toBe(1);
    const cut = result.stdout.indexOf('\n---\n');
    const [head, yaml] = [result.stdout.slice(0, cut), result.stdout.slice(cut + 5)];
    expect(head).toBe(
      [
        'no',
        'user "alice" may not update deployments (apps) in namespace "team-b"',
        'closest existing grant: RoleBinding "alice-deploys/team-a" of Role "deployer" to User "alice" allows exactly this, but only in namespace "team-a"',
        'the smallest grant: Role "update-deployments" and RoleBinding "update-deployments-alice"',
        '',
        'to grant it:',
        '  kubectl create role update-deployments -n team-b --verb=update --resource=deployments.apps',
        '  kubectl create rolebinding update-deployments-alice -n team-b --role=update-deployments --user=alice',
      ].join('\n'),
    );
    const { mkdtemp, readFile, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const granted = join(await mkdtemp(join(tmpdir(), 'authorize-')), 'state.yaml');
    await writeFile(granted, `${await readFile(state, 'utf8')}\n---\n${yaml}`);
    const again = await run(['--as', 'alice', '-n', 'team-b', 'update', 'deployments.apps', '--cluster-state', granted, '-q']);
    expect(again.code).toBe(0);
  });

  it('a FILE review that is not allowed gets its suggestion on stderr; stdout stays the review', async () => {
    const text = await import('node:fs/promises').then((fs) => fs.readFile(fixture('sar-denied.json'), 'utf8'));
    const result = await run(['-', '--cluster-state', state], text);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.allowed).toBe(false);
    expect(result.stderr.slice(warnings.length)).toMatch(/ may not [\s\S]*kind: RoleBinding\n/);
  });

  it('--quiet prints nothing and answers with the exit code', async () => {
    expect(await run(['--as', 'alice', '-q', 'get', 'secrets', '--cluster-state', state])).toEqual({ code: 1, stdout: '', stderr: '' });
  });

  it.each([
    [['--as-group', 'g', 'get', 'pods'], '--as-group and --as-uid need --as'],
    [['--as', 'alice', 'get'], 'with --as, give VERB RESOURCE'],
    [['--as', 'alice', 'get', 'pods', 'a', 'b'], 'with --as, give VERB RESOURCE'],
    [['--as', 'alice', 'get', '/healthz', 'name'], 'a non-resource URL takes no NAME'],
    [['--as', 'alice', 'get', '.apps'], 'no resource named'],
  ])('usage error %j -> exit 2', async (args, message) => {
    const result = await run([...args, '--cluster-state', state]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
