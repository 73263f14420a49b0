// `admission-chain migrate` with ImagePolicyWebhook enabled in the source: its imagePolicy settings
// become the chart's values (in the file's own units and sentinels), the values name the Secret the
// backend's kubeconfig must be put in and the notes say so, and the chart renders the same
// configuration back; what kube-apiserver would refuse, migrate refuses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type KubeObject, renderChart } from '../deploy/helm.ts';
import { runMain } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'migrate-image-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function admissionFile(imagePolicy: Record<string, unknown>): string {
  const file = join(dir, `admission-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n  - name: ImagePolicyWebhook\n    configuration:\n      imagePolicy: ${JSON.stringify(imagePolicy)}\n`,
  );
  return file;
}

const flags = (file?: string) =>
  `--enable-admission-plugins=ImagePolicyWebhook${file === undefined ? '' : ` --admission-control-config-file=${file}`}`;

describe('migrate: ImagePolicyWebhook', () => {
  it('carries the imagePolicy settings and names the Secret for the kubeconfig, which the chart renders back', async () => {
    const file = admissionFile({
      kubeConfigFile: '/etc/kubernetes/image-policy/kubeconfig.yaml',
      allowTTL: 50,
      denyTTL: -1,
      retryBackoff: 0,
      defaultAllow: true,
    });
    const result = await runMain(['migrate', '--flags', flags(file)]);
    expect(result.code, result.stderr).toBe(0);
    const values = parse(result.stdout) as { plugins: Record<string, Record<string, unknown>> };
    expect(values.plugins.ImagePolicyWebhook).toEqual({
      enabled: true,
      kubeConfigSecret: { name: 'image-policy-backend', key: 'kubeconfig' },
      allowTTL: 50,
      denyTTL: -1,
      retryBackoff: 0,
      defaultAllow: true,
    });
    expect(result.stdout).toContain(
      "ImagePolicyWebhook: put the backend's kubeconfig (/etc/kubernetes/image-policy/kubeconfig.yaml on the control plane)",
    );
    const rendered = renderChart({ values: values as Record<string, unknown> });
    const configMap = rendered.find((o) => o.kind === 'ConfigMap') as KubeObject & { data: Record<string, string> };
    const configuration = parse(configMap.data['admission-configuration.yaml']!, { version: '1.1' });
    expect(configuration.plugins).toEqual([
      {
        name: 'ImagePolicyWebhook',
        configuration: {
          imagePolicy: {
            kubeConfigFile: '/etc/admission-chain/image-policy/kubeconfig',
            allowTTL: 50,
            denyTTL: -1,
            retryBackoff: 0,
            defaultAllow: true,
          },
        },
      },
    ]);
  });

  it.each([
    [undefined, 'ImagePolicyWebhook is enabled without --admission-control-config-file'],
    [
      { kubeConfigFile: 'k', denyTTL: 5000 },
      'plugin ImagePolicyWebhook: imagePolicy.denyTTL: valid value is between 1s and 30m0s, got 1h23m20s',
    ],
    [{ allowTTL: 10 }, "plugin ImagePolicyWebhook: imagePolicy.kubeConfigFile: must name the backend's kubeconfig file"],
  ])('refuses %j as the webhook would', async (imagePolicy, message) => {
    const result = await runMain(['migrate', '--flags', flags(imagePolicy === undefined ? undefined : admissionFile(imagePolicy))]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain(message);
  });
});
