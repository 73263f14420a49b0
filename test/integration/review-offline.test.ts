// `admission-chain review` reproduces upstream's OwnerReferencesPermissionEnforcement decisions
// offline: every row of gc_admission_test.go, fed as an AdmissionReview through the real CLI
// entry point (in-process, for speed) against the fixture cluster state that translates
// upstream's fake authorizer into RBAC.
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { allUpstreamCases, attributesFor, expectedMessage } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { fixtureClusterStatePath } from '../support/cluster-state.ts';

async function review(body: unknown, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'admission-chain', 'review', '-', ...args], {
    stdin: Readable.from([JSON.stringify(body)]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

describe('review reproduces upstream OwnerReferencesPermissionEnforcement decisions offline', () => {
  const state = fileURLToPath(fixtureClusterStatePath('ownerreferences/cluster-state.yaml'));
  it.each(allUpstreamCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const attributes = attributesFor(c);
    const body = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'row',
        kind: { group: '', version: 'v1', kind: c.resource === 'pods' ? 'Pod' : 'NotPod' },
        resource: attributes.resource,
        ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
        namespace: attributes.namespace,
        name: attributes.name,
        operation: attributes.operation,
        userInfo: attributes.userInfo,
        object: attributes.object,
        oldObject: attributes.oldObject ?? null,
      },
    };
    const result = await review(body, [
      '--cluster-state',
      state,
      '--phase',
      'validating',
      '--plugins',
      'OwnerReferencesPermissionEnforcement',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout).response;
    expect(response.allowed).toBe(c.expect === 'allowed');
    if (c.expect !== 'allowed') {
      expect(response.status).toMatchObject({ code: 403, reason: 'Forbidden' });
      // RBAC's denial reasons are empty, like upstream's fake authorizer's.
      expect(response.status.message).toBe(expectedMessage(c));
    }
  });
});
