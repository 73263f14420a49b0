// Upstream config_test.go TestConfigNormalization and admission_test.go TestNewFromConfig, every row
// (testdata/upstream-cases.ts); then the decoding and the messages the tables do not check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestCertificates, testCertificates } from '../../../test/support/image-review-backend.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { scratchFiles } from '../../../test/support/scratch-files.ts';
import { kubeConfigImageReviewClients } from '../../adapters/imagepolicy/kubeconfig-client.ts';
import { createPlugin } from '../../admission/plugin.ts';
import type { PluginConfiguration } from '../../ports/plugin-configuration.ts';
import { decodeConfiguration, limits, normalizeConfiguration, parseConfiguration } from './configuration.ts';
import { definition, pluginName } from './index.ts';
import { configNormalizationCases, newFromConfigCases, newFromConfigSettings } from './testdata/upstream-cases.ts';

const files = scratchFiles('image-policy-configuration');
let certs: TestCertificates;
beforeAll(async () => {
  certs = await testCertificates();
});

const section = (document: unknown): PluginConfiguration => ({ source: 'admission.yaml plugins[0].configuration', documents: [document] });

describe('TestConfigNormalization', () => {
  it.each(configNormalizationCases)('$test', (row) => {
    const decoded = { kubeConfigFile: '', defaultAllow: false, ...row.config };
    if (row.normalized === undefined) {
      expect(() => normalizeConfiguration(decoded)).toThrow(/^valid value is between /);
      return;
    }
    expect(normalizeConfiguration(decoded)).toEqual({ ...decoded, ...row.normalized });
  });
});

describe('TestNewFromConfig', () => {
  it.each(newFromConfigCases)('$msg', (row) => {
    const paths = {
      CA: join(files.dir, 'ca.pem'),
      Cert: join(files.dir, 'clientcert.pem'),
      Key: join(files.dir, 'clientkey.pem'),
    };
    writeFileSync(paths.CA, certs.ca.cert);
    writeFileSync(paths.Cert, certs.client.cert);
    writeFileSync(paths.Key, certs.client.key);
    const kubeConfig = files.write(
      'kubeconfig.yaml',
      row.kubeConfig.replace(/\{\{(CA|Cert|Key)\}\}/g, (_, name: keyof typeof paths) => paths[name]),
    );
    // defaultConfigTmplJSON, as JSON text read by the YAML decoder as upstream's is.
    const configuration = section({ imagePolicy: { kubeConfigFile: kubeConfig, ...newFromConfigSettings } });
    const build = () =>
      createPlugin(
        definition,
        testPorts({ configuration: { for: () => configuration }, imageReview: kubeConfigImageReviewClients }),
        'test',
      );
    if (row.wantErr)
      expect(build).toThrow(
        /^admission\.yaml plugins\[0\]\.configuration: plugin ImagePolicyWebhook: imagePolicy\.kubeConfigFile: image policy backend kubeconfig /,
      );
    else expect(build().name).toBe(pluginName);
  });
});

describe('ImagePolicyWebhook configuration', () => {
  it('takes upstream defaults for zeros and scales seconds and milliseconds', () => {
    expect(parseConfiguration(section({ imagePolicy: { kubeConfigFile: 'k' } }), pluginName)).toEqual({
      kubeConfigFile: 'k',
      allowTTL: limits.defaultAllowTTL,
      denyTTL: limits.defaultDenyTTL,
      retryBackoff: limits.defaultRetryBackoff,
      defaultAllow: false,
    });
    expect(
      parseConfiguration(
        section({ imagePolicy: { kubeConfigFile: 'k', allowTTL: 60, denyTTL: -1, retryBackoff: 250, defaultAllow: true } }),
        pluginName,
      ),
    ).toEqual({ kubeConfigFile: 'k', allowTTL: 60_000_000_000n, denyTTL: 0n, retryBackoff: 250_000_000n, defaultAllow: true });
  });

  it.each([
    [{ retryBackoff: -2 }, 'imagePolicy.retryBackoff: valid value is between 1ns and 5m0s, got -2ms'],
    [{ retryBackoff: 300001 }, 'imagePolicy.retryBackoff: valid value is between 1ns and 5m0s, got 5m0.001s'],
    [{ allowTTL: 1801 }, 'imagePolicy.allowTTL: valid value is between 1s and 30m0s, got 30m1s'],
    [{ denyTTL: -5 }, 'imagePolicy.denyTTL: valid value is between 1s and 30m0s, got -5s'],
    // The backoff is checked first, as upstream checks it.
    [{ allowTTL: 1801, retryBackoff: -2 }, 'imagePolicy.retryBackoff: valid value is between 1ns and 5m0s, got -2ms'],
  ])('refuses %j out of range with upstream message', (fields, message) => {
    expect(() => parseConfiguration(section({ imagePolicy: { kubeConfigFile: 'k', ...fields } }), pluginName)).toThrow(
      `admission.yaml plugins[0].configuration: plugin ImagePolicyWebhook: ${message}`,
    );
  });

  it("matches field names as Go's encoding/json does: case-insensitively, the last one winning", () => {
    const decoded = decodeConfiguration({ IMAGEPOLICY: { kubeconfigfile: 'a', AllowTtl: 2, allowTTL: 3 } }, (d) => new Error(d));
    expect(decoded).toMatchObject({ kubeConfigFile: 'a', allowTTL: 3n });
  });

  it.each([
    [[], 'json: cannot unmarshal array into Go value of type imagepolicy.AdmissionConfig'],
    [
      { imagePolicy: 'x' },
      'json: cannot unmarshal string into Go struct field AdmissionConfig.imagePolicy of type imagepolicy.imagePolicyWebhookConfig',
    ],
    [
      { imagePolicy: { allowTTL: '30' } },
      'json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.allowTTL of type time.Duration',
    ],
    [
      { imagePolicy: { denyTTL: 1.5 } },
      'json: cannot unmarshal number 1.5 into Go struct field imagePolicyWebhookConfig.imagePolicy.denyTTL of type time.Duration',
    ],
    [
      { imagePolicy: { defaultAllow: 'yes' } },
      'json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.defaultAllow of type bool',
    ],
    [
      { imagePolicy: { kubeConfigFile: 5 } },
      'json: cannot unmarshal number into Go struct field imagePolicyWebhookConfig.imagePolicy.kubeConfigFile of type string',
    ],
  ])('refuses %j with Go decoder message', (document, message) => {
    expect(() => parseConfiguration(section(document), pluginName)).toThrow(`plugin ImagePolicyWebhook: ${message}`);
  });

  it('needs a configuration and a kubeconfig file', () => {
    expect(() => parseConfiguration(undefined, pluginName)).toThrow('admission plugin ImagePolicyWebhook: no config specified');
    expect(() => parseConfiguration(section({ imagePolicy: {} }), pluginName)).toThrow(
      "plugin ImagePolicyWebhook: imagePolicy.kubeConfigFile: must name the backend's kubeconfig file",
    );
  });

  it('refuses a kubeconfig file that is missing, or whose server is not https, at start-up', () => {
    const client = (kubeConfig: string) => () => kubeConfigImageReviewClients.fromKubeConfigFile(kubeConfig);
    expect(client(join(files.dir, 'missing.yaml'))).toThrow(/^image policy backend kubeconfig .*missing\.yaml: ENOENT/);
    const plain = files.write(
      'http.yaml',
      'clusters: [{name: b, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: b, user: u}}]\ncurrent-context: c\n',
    );
    expect(client(plain)).toThrow('cluster "b": the server must be an https URL');
    const noUser = files.write(
      'nouser.yaml',
      'clusters: [{name: b, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: b, user: u}}]\ncurrent-context: c\n',
    );
    expect(client(noUser)).toThrow('context "c" names no user in the file');
  });
});
