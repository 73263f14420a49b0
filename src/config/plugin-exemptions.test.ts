// The PluginExemptions file: what it decodes to, every error it can give (each naming the file, the
// field and the plugin), and the plugins that are not enabled (reported, ignored).
import { describe, expect, it } from 'vitest';
import { scratchFiles } from '../../test/support/scratch-files.ts';
import { decodePluginExemptions, loadPluginExemptions, loadPluginExemptionsFlag, PluginExemptionsError } from './plugin-exemptions.ts';

const known = ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement', 'PodNodeSelector'];
const header = 'apiVersion: admission-chain.io/v1alpha1\nkind: PluginExemptions\n';
const files = scratchFiles('plugin-exemptions');

describe('decodePluginExemptions', () => {
  it('decodes every kind of rule, per plugin', () => {
    const rules = decodePluginExemptions(
      `${header}plugins:
  - name: AlwaysPullImages
    namespaces: [istio-system]
    namespaceSelectors:
      - matchLabels: {team: platform}
        matchExpressions:
          - {key: env, operator: In, values: [dev]}
    users: [ci-bot]
    groups: [platform-admins]
    serviceAccounts: [operators/vendor-operator]
  - name: OwnerReferencesPermissionEnforcement
    groups: ["system:serviceaccounts:operators"]
`,
      'exemptions.yaml',
      known,
    );
    expect([...rules.keys()]).toEqual(['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement']);
    expect(rules.get('AlwaysPullImages')).toEqual({
      namespaces: ['istio-system'],
      namespaceSelectors: [{ matchLabels: { team: 'platform' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }],
      users: ['ci-bot'],
      groups: ['platform-admins'],
      serviceAccounts: ['operators/vendor-operator'],
    });
    expect(rules.get('OwnerReferencesPermissionEnforcement')).toEqual({
      namespaces: [],
      namespaceSelectors: [],
      users: [],
      groups: ['system:serviceaccounts:operators'],
      serviceAccounts: [],
    });
  });

  it('reads JSON too, and an empty plugin list as no exemptions', () => {
    expect(
      decodePluginExemptions('{"apiVersion":"admission-chain.io/v1alpha1","kind":"PluginExemptions","plugins":[]}', 'f', known).size,
    ).toBe(0);
    expect(decodePluginExemptions(header, 'f', known).size).toBe(0);
  });

  const entry = (body: string) => `${header}plugins:\n  - name: AlwaysPullImages\n${body}`;
  it.each([
    ['an empty file', '', 'expected one PluginExemptions document, found 0'],
    ['two documents', `${header}---\n${header}`, 'expected one PluginExemptions document, found 2'],
    ['YAML that does not parse', `${header}plugins: [`, 'Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ['a duplicate field', `${header}kind: PluginExemptions\n`, 'strict decoding error: duplicate field: Map keys must be unique'],
    ['not an object', '- a\n', 'expected a PluginExemptions object'],
    ['no apiVersion', 'kind: PluginExemptions\n', "Object 'apiVersion' is missing: expected admission-chain.io/v1alpha1 PluginExemptions"],
    ['no kind', 'apiVersion: admission-chain.io/v1alpha1\n', "Object 'Kind' is missing: expected PluginExemptions"],
    [
      'another kind',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n',
      'no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1": expected admission-chain.io/v1alpha1 PluginExemptions',
    ],
    [
      'another version',
      'apiVersion: admission-chain.io/v1\nkind: PluginExemptions\n',
      'no kind "PluginExemptions" is registered for version "admission-chain.io/v1"',
    ],
    ['an unknown top-level field', `${header}exemptions: []\n`, 'strict decoding error: unknown field "exemptions"'],
    ['plugins not a list', `${header}plugins: {AlwaysPullImages: {}}\n`, 'plugins: expected a list'],
    ['an entry that is not an object', `${header}plugins: [AlwaysPullImages]\n`, 'plugins[0]: expected an object with name and the rules'],
    ['an entry without a name', `${header}plugins:\n  - users: [a]\n`, "plugins[0].name: Required value: the plugin's name"],
    [
      'an unknown plugin',
      `${header}plugins:\n  - name: NamespaceLifecycle\n    users: [a]\n`,
      'plugins[0].name: "NamespaceLifecycle" is not a plugin admission-chain implements (one of AlwaysPullImages, OwnerReferencesPermissionEnforcement, PodNodeSelector)',
    ],
    [
      'a plugin named twice',
      `${header}plugins:\n  - name: AlwaysPullImages\n    users: [a]\n  - name: AlwaysPullImages\n    users: [b]\n`,
      'plugins[1].name: AlwaysPullImages is exempted again: give each plugin one entry',
    ],
    ['an unknown rule', entry('    namespace: [a]\n'), 'strict decoding error: unknown field "plugins[0].namespace" (AlwaysPullImages)'],
    [
      'an entry that exempts nothing',
      entry('    users: []\n'),
      'plugins[0] (AlwaysPullImages): exempts nothing: give namespaces, namespaceSelectors, users, groups or serviceAccounts',
    ],
    ['namespaces not a list', entry('    namespaces: istio-system\n'), 'plugins[0].namespaces (AlwaysPullImages): expected a list'],
    ['an empty user', entry('    users: [""]\n'), 'plugins[0].users[0] (AlwaysPullImages): expected a non-empty string'],
    ['a group that is not a string', entry('    groups: [1]\n'), 'plugins[0].groups[0] (AlwaysPullImages): expected a non-empty string'],
    [
      'a namespace name that is not one',
      entry('    namespaces: [Istio_System]\n'),
      'plugins[0].namespaces[0] (AlwaysPullImages): Invalid value: "Istio_System": not a namespace name (a DNS-1123 label)',
    ],
    [
      'a service account without a namespace',
      entry('    serviceAccounts: [vendor-operator]\n'),
      'plugins[0].serviceAccounts[0] (AlwaysPullImages): Invalid value: "vendor-operator": expected namespace/name',
    ],
    [
      'a service account given as its username',
      entry('    serviceAccounts: ["system:serviceaccount:operators:vendor"]\n'),
      'plugins[0].serviceAccounts[0] (AlwaysPullImages): Invalid value: "system:serviceaccount:operators:vendor": expected namespace/name',
    ],
    [
      "a service account's bad namespace",
      entry('    serviceAccounts: [Operators/vendor]\n'),
      'Invalid value: "Operators/vendor": namespace "Operators" is not a namespace name (a DNS-1123 label)',
    ],
    [
      "a service account's bad name",
      entry('    serviceAccounts: [operators/Vendor]\n'),
      'Invalid value: "operators/Vendor": name "Vendor": a lowercase RFC 1123 subdomain must consist of',
    ],
    [
      'namespaceSelectors not a list',
      entry('    namespaceSelectors: {matchLabels: {a: b}}\n'),
      'plugins[0].namespaceSelectors (AlwaysPullImages): expected a list of label selectors',
    ],
    [
      'an empty selector (every namespace)',
      entry('    namespaceSelectors: [{}]\n'),
      'plugins[0].namespaceSelectors[0] (AlwaysPullImages): an empty selector would exempt every namespace: give matchLabels or matchExpressions',
    ],
    [
      'a selector that is not one',
      entry('    namespaceSelectors: ["team=platform"]\n'),
      'plugins[0].namespaceSelectors[0] (AlwaysPullImages): expected a label selector',
    ],
    [
      "a selector's bad operator",
      entry('    namespaceSelectors:\n      - matchExpressions: [{key: team, operator: Equals, values: [a]}]\n'),
      'plugins[0].namespaceSelectors[0].matchExpressions[0].operator (AlwaysPullImages): Unsupported value: "Equals"',
    ],
    [
      "a selector's In without values",
      entry('    namespaceSelectors:\n      - matchExpressions: [{key: team, operator: In}]\n'),
      'plugins[0].namespaceSelectors[0].matchExpressions[0].values (AlwaysPullImages): Required value',
    ],
    [
      "a selector's bad label key",
      entry('    namespaceSelectors:\n      - matchLabels: {"a b": c}\n'),
      'plugins[0].namespaceSelectors[0].matchLabels["a b"] (AlwaysPullImages): Invalid value: "a b"',
    ],
  ])('refuses %s', (_, text, message) => {
    let thrown: unknown;
    try {
      decodePluginExemptions(text, '/etc/exemptions.yaml', known);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PluginExemptionsError);
    expect((thrown as Error).message).toContain('plugin exemptions /etc/exemptions.yaml: ');
    expect((thrown as Error).message).toContain(message);
  });
});

describe('loadPluginExemptions', () => {
  const file = files.write(
    'exemptions.yaml',
    `${header}plugins:\n  - name: AlwaysPullImages\n    namespaces: [istio-system]\n  - name: PodNodeSelector\n    users: [a]\n`,
  );

  it('keeps the enabled plugins and warns about (and drops) those that are not', async () => {
    const loaded = await loadPluginExemptions(file, ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement'], known);
    expect([...loaded.rules.keys()]).toEqual(['AlwaysPullImages']);
    expect(loaded.warnings).toEqual([`plugin exemptions ${file}: PodNodeSelector is not enabled: its exemptions are ignored`]);
  });

  it('says which file it cannot read', async () => {
    await expect(loadPluginExemptions(`${files.dir}/missing.yaml`, [], known)).rejects.toThrow(
      `unable to read plugin exemptions from "${files.dir}/missing.yaml": ENOENT`,
    );
  });

  it('gives no exemptions without the flag', async () => {
    expect(await loadPluginExemptionsFlag(undefined, known, known)).toEqual({ rules: new Map(), warnings: [] });
    expect((await loadPluginExemptionsFlag(file, known, known)).rules.size).toBe(2);
  });
});
