// Upstream as the oracle, a fixed-seed sample: the same dry-run requests to a kube-apiserver running
// the plugins in-tree and to one running our webhook from the chart must get the same answers, except
// where test/oracle/divergences.ts documents why not. `npm run oracle -- --cases 5000` is the full run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admissionCases as externalIPRows } from '../../src/plugins/denyserviceexternalips/testdata/upstream-cases.ts';
import { allUpstreamCases as ownerReferenceRows } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { podAdmissionCases as nodeSelectorRows } from '../../src/plugins/podnodeselector/testdata/upstream-cases.ts';
import { podAdmissionCases as tolerationRows } from '../../src/plugins/podtolerationrestriction/testdata/upstream-cases.ts';
import { podTopologyCases as topologyRows } from '../../src/plugins/podtopologylabels/testdata/upstream-cases.ts';
import {
  setOverheadCases as setOverheadRows,
  setSchedulingCases as setSchedulingRows,
} from '../../src/plugins/runtimeclass/testdata/upstream-cases.ts';
import { admitCases as storageRows } from '../../src/plugins/storageobjectinuseprotection/testdata/upstream-cases.ts';
import { describeWithControlPlane } from '../control-plane/real-cluster.ts';
import { compareOutcomes, outcomeOf } from './compare.ts';
import { configuredRowGroups } from './configured-rows.ts';
import { docsExampleGroups, docsExamples } from './docs-examples.ts';
import { generateCases } from './generate.ts';
import { breakGlassAnnotation, unforwardedAnnotation } from './image-policy.ts';
import { notReplayed } from './owner-reference-rows.ts';
import { formatReport, type OracleReport, reportOf, runCaseResults } from './run.ts';
import { type OracleServers, oraclePlugins, startOracleServers } from './servers.ts';
import { upstreamCases } from './upstream-rows.ts';
import { existingPodName, namespacesWithExistingObjects } from './world.ts';

const seed = 20261201;
const sampleCases = 480;

describeWithControlPlane('upstream as the oracle: in-tree plugins and our webhook answer alike', () => {
  let servers: OracleServers;
  let report: OracleReport;
  beforeAll(async () => {
    servers = await startOracleServers();
    const results = await runCaseResults(servers, [...upstreamCases(oraclePlugins), ...generateCases(oraclePlugins, sampleCases, seed)]);
    // The rows that configure the plugin themselves and the docs' examples, each group on a server pair configured for it.
    for (const group of [...configuredRowGroups(oraclePlugins), ...docsExampleGroups(oraclePlugins)]) {
      const rowServers = await startOracleServers(group.plugins, group.world);
      try {
        results.push(...(await runCaseResults(rowServers, group.cases)));
      } finally {
        await rowServers.close();
      }
    }
    report = reportOf(results);
  }, 240_000);
  afterAll(() => servers?.close());

  it('every disagreement of the sample is a documented divergence, and every replayed upstream row meets its table', () => {
    expect(report.findings, formatReport(report)).toEqual([]);
    const replayed = report.results
      .filter((r) => r.oracleCase.upstreamExpects !== undefined && !r.oracleCase.id.startsWith('docs example '))
      .map((r) => r.oracleCase.plugin);
    // Every row of these tables, the ones that configure the plugin and the updates included.
    for (const [plugin, rows] of [
      ['PodNodeSelector', nodeSelectorRows.length],
      ['PodTolerationRestriction', tolerationRows.length],
      ['DenyServiceExternalIPs', externalIPRows.length],
      // Each row as a pod created on its node and as a Binding, but the one for the gate turned off.
      ['PodTopologyLabels', 2 * topologyRows.filter((row) => !row.featureDisabled).length],
      ['RuntimeClass', setOverheadRows.length + setSchedulingRows.length],
      // All but the two rows with the VolumeAttributesClass gate off, which is locked on at the pinned release.
      ['StorageObjectInUseProtection', storageRows.length - 2],
      // All but the rows no request can be (owner-reference-rows.ts says why for each).
      ['OwnerReferencesPermissionEnforcement', ownerReferenceRows.filter((row) => notReplayed(row) === undefined).length],
    ] as const)
      expect(replayed.filter((p) => p === plugin).length, plugin).toBe(rows);
    // Every example the docs walk through, with the outcome its comment claims.
    expect(report.results.filter((r) => r.oracleCase.id.startsWith('docs example ')).length).toBe(docsExamples.length);
  });

  it('each plugin sees cases it admits and cases it denies with its own message (the sample reaches the plugins)', () => {
    expect([...report.tallies.keys()].sort()).toEqual([...oraclePlugins].sort());
    for (const [plugin, tally] of report.tallies) {
      expect(tally.admitted, plugin).toBeGreaterThan(0);
      expect(tally.admitted, plugin).toBeLessThan(tally.run);
    }
    const messages = report.results.flatMap((r) => (r.inTree.admitted ? [] : [r.inTree.message]));
    for (const own of [
      'pod node label selector conflicts with its namespace node label selector',
      'conflict with its namespace whitelist',
      'but only key kubernetes.io/hostname is allowed',
      'Use of external IPs is denied by admission control',
      "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
      "cannot set an ownerRef on a resource you can't delete",
      'is not allowed because service account locked does not reference that secret',
      'error looking up service account',
      "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      'conflict: runtimeClass.scheduling.nodeSelector',
      'image policy webhook backend denied one or more images: blocked: registry.example/blocked/',
    ])
      expect(
        messages.some((m) => m.includes(own)),
        own,
      ).toBe(true);
    // AlwaysPullImages and ExtendedResourceToleration only mutate: admitted pods carry their work.
    const admittedPods = report.results.flatMap((r) =>
      r.inTree.admitted && r.oracleCase.request.resource === 'pods' ? [JSON.stringify(r.inTree.object)] : [],
    );
    expect(admittedPods.some((p) => p.includes('"key":"example.com/gpu","operator":"Exists","effect":"NoSchedule"'))).toBe(true);
    // PodTopologyLabels copies the node's zone onto pods created on it and pods bound to it.
    const zoneCopied = (r: (typeof report.results)[number]) =>
      r.inTree.admitted && JSON.stringify(r.inTree.object).includes('"topology.kubernetes.io/zone":"zone-a"');
    expect(report.results.some((r) => r.oracleCase.request.operation === 'create' && zoneCopied(r))).toBe(true);
    expect(report.results.some((r) => r.oracleCase.request.operation === 'bind' && zoneCopied(r))).toBe(true);
    // ImagePolicyWebhook showed the backend the break-glass ticket, never the annotation without the dot.
    const reviews = servers.imagePolicy?.received ?? [];
    expect(reviews.some((r) => r.spec.annotations?.[breakGlassAnnotation] === 'T-1')).toBe(true);
    expect(reviews.some((r) => (r.spec.containers ?? []).some((c) => c.image?.includes('/blocked/')))).toBe(true);
    expect(reviews.every((r) => r.spec.annotations?.[unforwardedAnnotation] === undefined)).toBe(true);
    // StorageObjectInUseProtection adds its finalizers to claims, volumes and volume attributes classes.
    for (const finalizer of ['kubernetes.io/pvc-protection', 'kubernetes.io/pv-protection', 'kubernetes.io/vac-protection'])
      expect(
        report.results.some((r) => r.inTree.admitted && JSON.stringify(r.inTree.object).includes(`"finalizers":["${finalizer}"]`)),
        finalizer,
      ).toBe(true);
    // ServiceAccount mounts the token and copies the account's pull secrets.
    expect(admittedPods.some((p) => p.includes('"name":"kube-api-access-<generated>"'))).toBe(true);
    expect(admittedPods.some((p) => p.includes('"imagePullSecrets":[{"name":"regcred"}]'))).toBe(true);
    expect(
      admittedPods.every(
        (p) => !p.includes('"imagePullPolicy":"Never"') || p.includes('oracle-opted-out') || p.includes('"namespace":"kube-system"'),
      ),
    ).toBe(true);
  });

  it("the world's pods, each admitted by its own server's chain when the world was made, are the same pods", async () => {
    for (const namespace of namespacesWithExistingObjects) {
      const path = `/api/v1/namespaces/${namespace}/pods/${existingPodName}`;
      const [inTree, webhook] = await Promise.all([servers.inTree.get(path), servers.webhook.get(path)]);
      expect(inTree.code, namespace).toBe(200);
      expect(compareOutcomes(outcomeOf(inTree), outcomeOf(webhook)), namespace).toEqual([]);
    }
  });
});
