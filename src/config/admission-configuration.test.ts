// Upstream k8s.io/apiserver pkg/admission/config_test.go: TestReadAdmissionConfiguration and
// TestEmbeddedConfiguration, every row; then reading sections by path, the legacy file, and the
// start-up errors and warnings this webhook adds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AdmissionConfigurationError, decodeAdmissionConfiguration, loadAdmissionConfiguration } from './admission-configuration.ts';

const dir = mkdtempSync(join(tmpdir(), 'admission-configuration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configFileName = join(dir, 'admission-plugin-config');

describe('TestReadAdmissionConfiguration', () => {
  const imagePolicyWebhookFile = join(dir, 'image-policy-webhook.json');
  const legacyBody = `{
"imagePolicy": {
  "kubeConfigFile": "/home/user/.kube/config",
  "allowTTL": 30,
  "denyTTL": 30,
  "retryBackoff": 500,
  "defaultAllow": true
},
"podNodeSelectorPluginConfig": {
  "clusterDefaultNodeSelector": ""
}
}`;
  it.each([
    {
      name: 'duplicate field configuration error',
      body: `{
"apiVersion": "apiserver.k8s.io/v1alpha1",
"kind": "AdmissionConfiguration",
"plugins": [
  {"name": "ImagePolicyWebhook-duplicate", "name": "ImagePolicyWebhook", "path": "image-policy-webhook.json"},
  {"name": "ResourceQuota"}
]}`,
      pluginNames: [],
      error: 'strict decoding error: duplicate field',
    },
    {
      name: 'unknown field configuration error',
      body: `{
"apiVersion": "apiserver.k8s.io/v1alpha1",
"kind": "AdmissionConfiguration",
"plugins": [
  {"foo": "bar", "name": "ImagePolicyWebhook", "path": "image-policy-webhook.json"},
  {"name": "ResourceQuota"}
]}`,
      pluginNames: [],
      error: 'strict decoding error: unknown field',
    },
    {
      name: 'v1alpha1 configuration - path fixup',
      body: `{"apiVersion": "apiserver.k8s.io/v1alpha1", "kind": "AdmissionConfiguration", "plugins": [{"name": "ImagePolicyWebhook", "path": "image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`,
      pluginNames: [],
      plugins: [{ name: 'ImagePolicyWebhook', path: imagePolicyWebhookFile }, { name: 'ResourceQuota' }],
    },
    {
      name: 'v1alpha1 configuration - abspath',
      body: `{"apiVersion": "apiserver.k8s.io/v1alpha1", "kind": "AdmissionConfiguration", "plugins": [{"name": "ImagePolicyWebhook", "path": "/tmp/image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`,
      pluginNames: [],
      plugins: [{ name: 'ImagePolicyWebhook', path: '/tmp/image-policy-webhook.json' }, { name: 'ResourceQuota' }],
    },
    {
      name: 'v1 configuration - path fixup',
      body: `{"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AdmissionConfiguration", "plugins": [{"name": "ImagePolicyWebhook", "path": "image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`,
      pluginNames: [],
      plugins: [{ name: 'ImagePolicyWebhook', path: imagePolicyWebhookFile }, { name: 'ResourceQuota' }],
    },
    {
      name: 'v1 configuration - abspath',
      body: `{"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AdmissionConfiguration", "plugins": [{"name": "ImagePolicyWebhook", "path": "/tmp/image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`,
      pluginNames: [],
      plugins: [{ name: 'ImagePolicyWebhook', path: '/tmp/image-policy-webhook.json' }, { name: 'ResourceQuota' }],
    },
    {
      name: 'legacy configuration with using legacy plugins',
      body: legacyBody,
      pluginNames: ['ImagePolicyWebhook', 'PodNodeSelector'],
      plugins: [
        { name: 'ImagePolicyWebhook', path: configFileName },
        { name: 'PodNodeSelector', path: configFileName },
      ],
    },
    {
      name: 'legacy configuration not using legacy plugins',
      body: legacyBody,
      pluginNames: ['NamespaceLifecycle', 'InitialResources'],
      plugins: [],
    },
  ])('$name', ({ body, pluginNames, error, plugins }) => {
    const decode = () => decodeAdmissionConfiguration(body, configFileName, pluginNames);
    if (error !== undefined) {
      expect(decode).toThrow(AdmissionConfigurationError);
      expect(decode).toThrow(error);
    } else {
      expect(decode().plugins).toEqual(plugins);
    }
  });
});

describe('TestEmbeddedConfiguration', () => {
  const plugin = (apiVersion: string, configuration: string) =>
    `{"apiVersion": "${apiVersion}", "kind": "AdmissionConfiguration", "plugins": [{"name": "Foo", "configuration": ${configuration}}]}`;
  const versioned = '{"apiVersion": "foo.admission.k8s.io/v1alpha1", "kind": "Configuration", "foo": "bar"}';
  const legacy = '{"foo": "bar"}';
  it.each([
    ['v1alpha1 versioned configuration', 'apiserver.k8s.io/v1alpha1', versioned],
    ['v1alpha1 legacy configuration', 'apiserver.k8s.io/v1alpha1', legacy],
    ['v1 versioned configuration', 'apiserver.config.k8s.io/v1', versioned],
    ['v1 legacy configuration', 'apiserver.config.k8s.io/v1', legacy],
  ])('%s', async (_name, apiVersion, configuration) => {
    const file = join(dir, `embedded-${_name.replaceAll(' ', '-')}.json`);
    writeFileSync(file, plugin(apiVersion, configuration));
    const { configurations } = await loadAdmissionConfiguration(file, ['Foo'], ['Foo']);
    expect(configurations.for('Foo')?.documents).toEqual([JSON.parse(configuration)]);
  });
});

describe('loadAdmissionConfiguration', () => {
  it("reads each enabled plugin's section: inline, or by a path relative to the file", async () => {
    const sub = mkdtempSync(join(dir, 'conf-'));
    writeFileSync(join(sub, 'pns.yaml'), 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=dev\n');
    writeFileSync(
      join(sub, 'admission.yaml'),
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodNodeSelector
  path: pns.yaml
- name: PodTolerationRestriction
  configuration:
    apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
    kind: Configuration
- name: AlwaysPullImages
`,
    );
    const { configurations, warnings } = await loadAdmissionConfiguration(
      join(sub, 'admission.yaml'),
      ['AlwaysPullImages', 'PodNodeSelector', 'PodTolerationRestriction'],
      [],
    );
    expect(configurations.for('PodNodeSelector')).toEqual({
      source: `${join(sub, 'pns.yaml')} (plugins[0].path in ${join(sub, 'admission.yaml')})`,
      documents: [{ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=dev' } }],
    });
    expect(configurations.for('PodTolerationRestriction')).toEqual({
      source: `${join(sub, 'admission.yaml')} plugins[1].configuration`,
      documents: [{ apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration' }],
    });
    expect(configurations.for('AlwaysPullImages')).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("a legacy file is PodNodeSelector's configuration itself", async () => {
    const file = join(dir, 'legacy.yaml');
    writeFileSync(file, 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=dev\nimagePolicy: {}\n');
    const { configurations, warnings } = await loadAdmissionConfiguration(file, ['PodNodeSelector'], ['PodNodeSelector']);
    expect(configurations.for('PodNodeSelector')).toEqual({
      source: `${file} (legacy podNodeSelectorPluginConfig)`,
      documents: [{ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=dev' }, imagePolicy: {} }],
    });
    expect(warnings).toEqual([
      `admission configuration ${file}: imagePolicy configures ImagePolicyWebhook, which admission-chain does not implement: ignored`,
    ]);
  });

  it('warns once per section it ignores: plugins not run, unknown plugins, repeated entries', async () => {
    const file = join(dir, 'many.yaml');
    writeFileSync(
      file,
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration: {apiVersion: pod-security.admission.config.k8s.io/v1, kind: PodSecurityConfiguration}
- name: EventRateLimit
  path: /nowhere/eventconfig.yaml
- name: PodNodeSelector
  configuration: {podNodeSelectorPluginConfig: {}}
- name: PodNodeSelector
  path: /nowhere/second.yaml
- name: PodTolerationRestriction
  path: /nowhere/ptr.yaml
`,
    );
    const { configurations, warnings } = await loadAdmissionConfiguration(
      file,
      ['PodNodeSelector'],
      ['PodNodeSelector', 'PodTolerationRestriction'],
    );
    expect(configurations.for('PodNodeSelector')?.documents).toEqual([{ podNodeSelectorPluginConfig: {} }]);
    expect(warnings).toEqual([
      `admission configuration ${file}: plugins[0] configures PodSecurity, which admission-chain does not implement: ignored`,
      `admission configuration ${file}: plugins[1] configures EventRateLimit, which admission-chain does not implement: ignored`,
      `admission configuration ${file}: plugins[3] configures PodNodeSelector again: ignored (the first entry is used)`,
      `admission configuration ${file}: plugins[4] configures PodTolerationRestriction, which is not enabled: ignored`,
    ]);
  });

  it.each([
    ['missing.yaml', undefined, 'unable to read admission control configuration from'],
    ['bad-yaml.yaml', 'apiVersion: [\n', 'admission configuration'],
    ['no-kind.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n', "Object 'Kind' is missing"],
    ['no-version.yaml', 'kind: AdmissionConfiguration\n', "Object 'apiVersion' is missing"],
    [
      'wrong-version.yaml',
      'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AdmissionConfiguration\n',
      'no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1alpha1"',
    ],
    [
      'unknown-top.yaml',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nmetadata: {}\n',
      'strict decoding error: unknown field "metadata"',
    ],
    [
      'not-a-list.yaml',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: {name: x}\n',
      'plugins: expected a list',
    ],
    [
      'name-number.yaml',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: 5}]\n',
      'plugins[0].name: expected a string',
    ],
    [
      'bad-path.yaml',
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: PodNodeSelector, path: absent.yaml}]\n',
      "couldn't open admission plugin configuration",
    ],
  ])('%s: a start-up error naming the file', async (name, body, message) => {
    const file = join(dir, name);
    if (body !== undefined) writeFileSync(file, body);
    const load = loadAdmissionConfiguration(file, ['PodNodeSelector'], ['PodNodeSelector']);
    await expect(load).rejects.toThrow(AdmissionConfigurationError);
    await expect(load).rejects.toThrow(message);
    await expect(load).rejects.toThrow(name);
  });

  it('a section by path that does not parse names that file', async () => {
    writeFileSync(join(dir, 'broken-section.yaml'), 'podNodeSelectorPluginConfig: [\n');
    const file = join(dir, 'with-broken-section.yaml');
    writeFileSync(
      file,
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: PodNodeSelector, path: broken-section.yaml}]\n',
    );
    await expect(loadAdmissionConfiguration(file, ['PodNodeSelector'], ['PodNodeSelector'])).rejects.toThrow(
      `${join(dir, 'broken-section.yaml')} (plugins[0].path in ${file}): `,
    );
  });
});
