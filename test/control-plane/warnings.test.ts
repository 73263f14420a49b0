// kube-apiserver's warning recorder, which turns every webhook's warnings into the response's
// Warning headers, and what it means for ours.
//
// Upstream's own table for the recorder (k8s.io/apiserver pkg/endpoints/filters/warning_test.go:
// Test_recorder_AddWarning and TestTruncation) replayed as real requests: a third-party validating
// webhook answers each dry-run write with a row's warnings, and the test reads the raw Warning
// headers (kubectl would deduplicate and reformat them). A webhook's warnings reach the recorder with
// an empty agent, so every replayed row names none; the two rows about the agent itself ("simple",
// "invalid agent") cannot be sent through a webhook and are not replayed, and "duplicate text" sends
// its two texts with the empty agent a webhook gets. TestTruncation shrinks the recorder's limits to
// 25 runes in all and 5 per item; here the same sequence is scaled to the real limits, 4096 and 256.
//
// The explanation's warnings reach kubectl whole even when other webhooks fill that budget: past
// 4096 runes in all, kube-apiserver cuts every warning to 256 runes (and drops what still does not
// fit), so each explanation warning is kept within 256. A noisy third-party mutating webhook adds ten
// warnings of 1001 runes to a write our validating webhook then denies.
import { request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockOwnerDeletionDenied, deniedByValidatingWebhook, ownerDenialWarnings } from '../kubectl/scenarios.ts';
import { startTestWebhook, type TestWebhook } from '../kubectl/test-webhook.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

const noise = Array.from({ length: 10 }, (_, i) => `${i}${'x'.repeat(1000)}`);

const totalRunes = 4096;
const itemRunes = 256;

/** TestTruncation's sequence at the real limits: the first part fills the total exactly, each long item past an item's length. */
const long = (letter: string) => letter.repeat(300);
const international = `${'Iñtërnâtiô'.repeat(209)}I`;
const wholeTexts = ['a'.repeat(2000), 'a'.repeat(2000), 'bb', 'ccc', international];
/** 'e' passes the total and starts the cutting; fourteen cut items fill it again; the repeated one and 'h' are dropped. */
const cutLetters = 'fgijklmnopqrst'.split('');
const pastTotalTexts = ['e', long('f'), long('f'), ...cutLetters.slice(1).map(long), 'h'];

/** Each row's warnings, by the name of the PodTemplate whose dry-run create carries them. */
const rows: Record<string, { warnings: string[]; headers: string[] }> = {
  empty: { warnings: [], headers: [] },
  'empty values': { warnings: [''], headers: [] },
  'empty agent': { warnings: ['mytext'], headers: ['299 - "mytext"'] },
  'duplicate text': { warnings: ['mytext', 'mytext'], headers: ['299 - "mytext"'] },
  multiple: { warnings: ['mytext1', 'mytext2', 'mytext3'], headers: ['299 - "mytext1"', '299 - "mytext2"', '299 - "mytext3"'] },
  'invalid text': { warnings: ['my\ntext'], headers: [] },
  'truncation, within the total': {
    warnings: wholeTexts,
    headers: [`299 - "${'a'.repeat(2000)}"`, '299 - "bb"', '299 - "ccc"', `299 - "${international}"`],
  },
  'truncation, past the total': {
    warnings: [...wholeTexts, ...pastTotalTexts],
    headers: [
      `299 - "${'a'.repeat(itemRunes)}"`,
      '299 - "bb"',
      '299 - "ccc"',
      `299 - "${[...international].slice(0, itemRunes).join('')}"`,
      '299 - "e"',
      ...cutLetters.map((letter) => `299 - "${letter.repeat(itemRunes)}"`),
    ],
  },
};

describeWithControlPlane("warnings past kube-apiserver's budget", () => {
  let cluster: RealCluster;
  let noisy: TestWebhook;
  let recorded: TestWebhook;
  beforeAll(async () => {
    cluster = await demoRealCluster();
    const byObject = new Map(Object.entries(rows).map(([name, row]) => [objectName(name), row.warnings]));
    recorded = await startTestWebhook((request) => ({ allowed: true, warnings: byObject.get(request.name ?? '') ?? [] }));
    await cluster.apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'warning-rows' },
      webhooks: [
        {
          name: 'rows.warnings.example',
          admissionReviewVersions: ['v1'],
          clientConfig: recorded.clientConfig('/rows'),
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['podtemplates'], operations: ['CREATE'] }],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    });
    noisy = await startTestWebhook(() => ({ allowed: true, warnings: noise }));
    await cluster.apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'noisy-neighbour' },
      webhooks: [
        {
          name: 'warn.noisy.example',
          admissionReviewVersions: ['v1'],
          clientConfig: noisy.clientConfig('/warn'),
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    });
    // kube-apiserver reads webhook configurations through an informer: wait until a write reaches it.
    const deadline = Date.now() + 20_000;
    while (noisy.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the noisy webhook was not called');
      await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/configmap-owner-allowed.yaml');
    }
    while (recorded.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the warning rows webhook was not called');
      await createPodTemplate(cluster, 'empty');
    }
  });
  afterAll(async () => {
    await cluster?.close();
    await noisy?.close();
    await recorded?.close();
  });

  describe('Test_recorder_AddWarning and TestTruncation, through kube-apiserver', () => {
    it("the scaled sequence has the shape of upstream's: the first part fills the total exactly, the cut part passes it with its last item", () => {
      const runes = (texts: string[]) => texts.reduce((sum, text) => sum + [...text].length, 0);
      expect(runes([...new Set(wholeTexts)])).toBe(totalRunes);
      const cutInOrder = [...new Set([...wholeTexts, ...pastTotalTexts.slice(0, -1)])].map((text) => Math.min([...text].length, itemRunes));
      expect(cutInOrder.slice(0, -1).reduce((a, b) => a + b)).toBeLessThan(totalRunes);
      expect(cutInOrder.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(totalRunes);
    });

    it.each(Object.entries(rows))('%s', async (name, row) => {
      const { status, warnings } = await createPodTemplate(cluster, name);
      expect(status).toBe(201);
      expect(warnings).toEqual(row.headers);
    });
  });

  it("the other webhook's warnings are cut to 256 runes; the explanation and the denial arrive whole", async () => {
    const file = 'examples/configmap-owner-denied.yaml';
    const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        noise.map((warning) => `Warning: ${warning.slice(0, 256)}\n`).join('') +
        ownerDenialWarnings +
        `Error from server (Forbidden): error when creating "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied('configmaps', 'owned-config'))}\n`,
    });
  });
});

/** A dry-run create of a PodTemplate named after a row, as the admin; the response's status and its Warning headers, each as sent. */
async function createPodTemplate(cluster: RealCluster, name: string): Promise<{ status: number; warnings: string[] }> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.controlPlane.kubeconfigPath);
  const url = new URL('/api/v1/namespaces/default/podtemplates?dryRun=All', cluster.controlPlane.server);
  const options: Parameters<typeof request>[1] = { method: 'POST', headers: { 'Content-Type': 'application/json' }, timeout: 10_000 };
  await kubeConfig.applyToHTTPSOptions(options);
  const body = JSON.stringify({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: objectName(name) },
    template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/app' }] } },
  });
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      res.resume();
      // Header values arrive as Latin-1; the recorder writes UTF-8.
      const warnings = (res.headersDistinct.warning ?? []).map((value) => Buffer.from(value, 'latin1').toString('utf8'));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, warnings }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('the API server did not answer in 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

function objectName(row: string): string {
  return row.replaceAll(/[^a-z]+/g, '-');
}
