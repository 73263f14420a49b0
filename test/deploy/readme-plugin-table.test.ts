// The plugin table in README.md ("The plugins") says what is so: its rows are the server's plugins
// in the server's order, "here" is the default set, "phase" is what each plugin implements, and each
// provider's column follows from what that provider documents (src/migrate/platforms.ts, each list with
// the page it comes from, which `migrate --target` reads too), every footnote mark is explained, and
// every provider page is cited.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClusterStateFile } from '../../src/adapters/local/cluster-state.ts';
import { createPlugin } from '../../src/admission/plugin.ts';
import { platformFacts, platformRuns } from '../../src/migrate/platforms.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { createLocalBackend } from '../../src/wiring/local.ts';
import { unreachableImageReviewBackend } from '../support/image-review-backend.ts';
import { repoRoot } from './tools.ts';

const providers = { EKS: 'eks', GKE: 'gke', AKS: 'aks' } as const;

/** A provider's cell, footnote marks aside. */
const expectedCell = (provider: keyof typeof providers, plugin: string): string => platformRuns(providers[provider], plugin);

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## The plugins'));
const tableLines = section
  .split('\n')
  .filter((line) => line.startsWith('| '))
  .slice(0, orderedPlugins.length + 2);
const [header, , ...rows] = tableLines.map((line) =>
  line
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim()),
);
const column = (name: string) => header!.indexOf(name);
const notes = section.slice(section.indexOf(tableLines.at(-1)!) + tableLines.at(-1)!.length, section.indexOf('- **On by default**'));
const marks = /[¹²³⁴⁵⁶⁷⁸⁹]+$/;

describe('README: the plugin table', () => {
  it('has the columns it explains', () => {
    expect(header).toEqual(['plugin', 'what it does', 'phase', 'here', 'EKS', 'GKE', 'AKS']);
  });

  it("lists the server's plugins in the server's order, each default on exactly when the server enables it by default", () => {
    expect(rows.map((row) => row[0])).toEqual(orderedPlugins.map((p) => p.name));
    for (const row of rows)
      expect([row[0], row[column('here')]]).toEqual([row[0], defaultEnabledPlugins.includes(row[0]!) ? '**on**' : 'off']);
  });

  it("names each plugin's phase as the plugin implements it", async () => {
    const local = createLocalBackend(await loadClusterStateFile(join(repoRoot, 'examples/cluster-state.yaml')), silentLogger);
    // EventRateLimit, as kube-apiserver's, will not start without a limit;
    const limits = [{ type: 'Server', qps: 1, burst: 1 }];
    const configuration = {
      source: 'test',
      documents: [{ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits }],
    };
    // ImagePolicyWebhook, neither without its backend (one that refuses at once: nothing is asked here).
    const imagePolicy = { source: 'test', documents: [{ imagePolicy: { kubeConfigFile: unreachableImageReviewBackend } }] };
    const ports = {
      ...local.ports,
      configuration: {
        for: (name: string) => (name === 'EventRateLimit' ? configuration : name === 'ImagePolicyWebhook' ? imagePolicy : undefined),
      },
    };
    for (const definition of orderedPlugins) {
      const plugin = createPlugin(definition, ports, 'local');
      const phase = plugin.admit && plugin.validate ? 'both' : plugin.admit ? 'mutating' : 'validating';
      expect([definition.name, rows.find((row) => row[0] === definition.name)?.[column('phase')]]).toEqual([definition.name, phase]);
    }
  });

  it.each(['EKS', 'GKE', 'AKS'] as const)('%s: each cell is what the provider documents', (provider) => {
    const cells = rows.map((row) => [row[0], row[column(provider)]!.replace(marks, '')]);
    expect(cells).toEqual(rows.map((row) => [row[0], expectedCell(provider, row[0]!)]));
  });

  it("explains every footnote mark it uses, and cites each provider's page", () => {
    const used = new Set(
      rows.flatMap((row) => [
        ...(row
          .slice(column('EKS'))
          .join(' ')
          .match(/[¹²³⁴⁵⁶⁷⁸⁹]/g) ?? []),
      ]),
    );
    expect(used.size).toBeGreaterThan(0);
    for (const mark of used) expect(notes).toContain(`${mark} `);
    for (const { source } of Object.values(platformFacts)) expect(notes).toContain(`(${source})`);
  });
});
