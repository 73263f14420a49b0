// `admission-chain serve --admission-control-config-file`: a bad file stops start-up (exit 2, one
// line naming the file, the plugin and the field, nothing served); a good one configures
// PodNodeSelector and PodTolerationRestriction, which then mutate and deny over HTTPS, with the
// sections for plugins it does not run logged once each.
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startWebhook } from '../../src/wiring/server.ts';
import { writeTestCertificates } from '../support/certs.ts';
import { runMain } from '../support/cli.ts';
import { get, post } from '../support/https-client.ts';
import { capturedLog } from '../support/log.ts';
import { podReview } from '../support/reviews.ts';
import { testServeConfig } from '../support/serve-config.ts';

const state = `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  annotations:
    scheduler.alpha.kubernetes.io/node-selector: pool=general
---
apiVersion: v1
kind: Namespace
metadata:
  name: plain
`;

const configuration = (pnsSection: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
- name: PodNodeSelector
  configuration:
${pnsSection}
- name: PodTolerationRestriction
  path: ptr.yaml
`;

const ptr = `apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
whitelist:
- key: pool
  operator: Exists
`;

describe('serve --admission-control-config-file', () => {
  it('a selector that does not parse stops start-up: exit 2, the file, the plugin and the field', async () => {
    const certs = await writeTestCertificates();
    await writeFile(`${certs.dir}/state.yaml`, state);
    await writeFile(`${certs.dir}/ptr.yaml`, ptr);
    await writeFile(`${certs.dir}/admission.yaml`, configuration('    podNodeSelectorPluginConfig:\n      team-a: "pool in (a)"'));
    const result = await runMain([
      'serve',
      '--cluster-state',
      `${certs.dir}/state.yaml`,
      '--tls-cert-file',
      certs.certFile,
      '--tls-private-key-file',
      certs.keyFile,
      '--port',
      '0',
      '--metrics-port',
      '0',
      '--plugins',
      'PodNodeSelector,PodTolerationRestriction',
      '--admission-control-config-file',
      `${certs.dir}/admission.yaml`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `admission-chain: ${certs.dir}/admission.yaml plugins[1].configuration: plugin PodNodeSelector: podNodeSelectorPluginConfig.team-a: invalid selector: [pool in (a)]\n`,
    );
    expect(result.stdout).not.toContain('admission-chain serving');
  });

  it('a file that cannot be read stops start-up the same way', async () => {
    const result = await runMain([
      'serve',
      '--tls-cert-file',
      'a',
      '--tls-private-key-file',
      'b',
      '--cluster-state',
      'examples/cluster-state.yaml',
      '--admission-control-config-file',
      '/nonexistent/admission.yaml',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^admission-chain: unable to read admission control configuration from "\/nonexistent\/admission\.yaml": /,
    );
  });

  it('configures the plugins it runs, warns about the rest, and serves their decisions', async () => {
    const certs = await writeTestCertificates();
    await writeFile(`${certs.dir}/state.yaml`, state);
    await writeFile(`${certs.dir}/ptr.yaml`, ptr);
    await writeFile(
      `${certs.dir}/admission.yaml`,
      configuration('    podNodeSelectorPluginConfig:\n      clusterDefaultNodeSelector: pool=shared'),
    );
    const log = capturedLog();
    const config = testServeConfig({
      clusterState: `${certs.dir}/state.yaml`,
      tlsCertFile: certs.certFile,
      tlsPrivateKeyFile: certs.keyFile,
      enableAdmissionPlugins: ['PodNodeSelector,PodTolerationRestriction'],
      admissionControlConfigFile: `${certs.dir}/admission.yaml`,
      logLevel: 'info',
    });
    const server = await startWebhook(config, log.destination);
    const port = server.port;
    try {
      await expect
        .poll(async () => (await get(`http://127.0.0.1:${server.metricsPort}/readyz`).catch(() => ({ status: 0 }))).status, {
          timeout: 10_000,
          interval: 100,
        })
        .toBe(200);
      const mutate = async (namespace: string) => {
        const res = await post(
          `https://127.0.0.1:${port}/mutate`,
          JSON.stringify(
            podReview({ uid: 'm', namespace, spec: { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Always' }] } }),
          ),
          { ca: certs.caCert },
        );
        return JSON.parse(Buffer.from(res.json().response.patch, 'base64').toString()) as Array<{ path: string; value?: unknown }>;
      };
      // The namespace's annotation, and the configured default where the namespace has none.
      expect(await mutate('team-a')).toContainEqual({ op: 'add', path: '/spec/nodeSelector', value: { pool: 'general' } });
      expect(await mutate('plain')).toContainEqual({ op: 'add', path: '/spec/nodeSelector', value: { pool: 'shared' } });

      const conflicting = await post(
        `https://127.0.0.1:${port}/validate`,
        JSON.stringify(podReview({ uid: 'v1', namespace: 'team-a', spec: { nodeSelector: { pool: 'gpu' }, containers: [] } })),
        { ca: certs.caCert },
      );
      expect(conflicting.json().response.status).toMatchObject({
        code: 403,
        message: 'pods "web" is forbidden: pod node label selector conflicts with its namespace node label selector',
      });
      // The configured cluster whitelist, by path relative to the AdmissionConfiguration file.
      const untolerated = await post(
        `https://127.0.0.1:${port}/validate`,
        JSON.stringify(
          podReview({
            uid: 'v2',
            namespace: 'team-a',
            spec: { nodeSelector: { pool: 'general' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }], containers: [] },
          }),
        ),
        { ca: certs.caCert },
      );
      expect(untolerated.json().response.status).toMatchObject({
        code: 500,
        message: 'pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist',
      });

      const metrics = (await get(`http://127.0.0.1:${server.metricsPort}/metrics`)).text;
      expect(metrics).toMatch(
        /admission_chain_controller_admission_duration_seconds_count\{name="PodNodeSelector",type="validate",operation="CREATE",rejected="true"\} 1/,
      );
      expect(metrics).toMatch(/admission_chain_lookups_total\{resource="namespaces",source="cache",result="hit"\} \d+/);

      expect(
        log
          .lines()
          .filter((l) => l.msg === 'admission configuration ignored')
          .map((l) => l.warning),
      ).toEqual([
        `admission configuration ${certs.dir}/admission.yaml: plugins[0] configures PodSecurity, which admission-chain does not implement: ignored`,
      ]);
    } finally {
      await server.shutdown();
    }
  });
});
