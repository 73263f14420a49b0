// `review` and `explain` over many documents: files, directories (recursively), stdin, multi-
// document YAML, JSON and Lists; a bad document reported by file and position without hiding the
// others; -o json|yaml|table and --fail-on. In-process through main().
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runMain } from '../support/cli.ts';
import { podReview } from '../support/reviews.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const state = 'examples/cluster-state.yaml';
const { dir, write } = scratchFiles('review-documents');

const pod = (name: string, pullPolicy: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', imagePullPolicy: pullPolicy }] },
});
const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } };

interface Output {
  summary: Record<string, number>;
  results: Array<{ source: string; kind?: string; name?: string; allowed?: boolean; error?: string; warnings?: string[] }>;
}
const parsed = (stdout: string) => JSON.parse(stdout) as Output;

describe('many documents', () => {
  it('reviews every document of a multi-document YAML file, a JSON file and a List, in order, naming each source', async () => {
    const yamlFile = write('pods.yaml', [pod('a', 'Always'), pod('b', 'Never')].map((d) => stringify(d)).join('---\n'));
    const jsonFile = write('service.json', JSON.stringify(service));
    const listFile = write('list.yaml', stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod('c', 'Always'), pod('d', 'Always')] }));
    const result = await runMain(['review', yamlFile, jsonFile, '-f', listFile, '--cluster-state', state, '--phase', 'validating']);
    expect(result.code).toBe(0);
    const { summary, results } = parsed(result.stdout);
    expect(results.map((r) => [r.source, r.name, r.allowed])).toEqual([
      [`${yamlFile}: document 1`, 'a', true],
      [`${yamlFile}: document 2`, 'b', false],
      [jsonFile, 'web', true],
      [`${listFile}: item 1`, 'c', true],
      [`${listFile}: item 2`, 'd', true],
    ]);
    expect(summary).toEqual({ objects: 5, allowed: 4, denied: 1, mutated: 0, warned: 1, created: 0, errors: 0 });
  });

  it('passes over empty documents (a leading or trailing ---, two in a row, only comments) as kubectl does, but not a written null', async () => {
    const [a, b] = [stringify(pod('a', 'Always')), stringify(pod('b', 'Always'))];
    const file = write('separators.yaml', `---\n${a}---\n---\n# nothing here\n---\n${b}---\n`);
    const result = await runMain(['review', file, '--cluster-state', state, '--phase', 'validating']);
    expect(result.code).toBe(0);
    // The count skips the empty ones: the positions are the documents with something in them.
    expect(parsed(result.stdout).results.map((r) => [r.source, r.name])).toEqual([
      [`${file}: document 1`, 'a'],
      [`${file}: document 2`, 'b'],
    ]);
    const withNull = write('null.yaml', `${a}---\n~\n`);
    const refused = await runMain(['review', withNull, '--cluster-state', state, '--phase', 'validating']);
    expect(refused.code).toBe(1);
    expect(parsed(refused.stdout).results.map((r) => [r.source, r.error])).toEqual([
      [`${withNull}: document 1`, undefined],
      [`${withNull}: document 2`, 'expected a Kubernetes object with apiVersion and kind'],
    ]);
  });

  it('reads a directory recursively, *.yaml, *.yml and *.json only, in name order, passing over empty files', async () => {
    const tree = join(dir, 'tree');
    mkdirSync(join(tree, 'apps', 'web'), { recursive: true });
    writeFileSync(join(tree, 'b.yml'), stringify(pod('b', 'Always')));
    writeFileSync(join(tree, 'a.json'), JSON.stringify(pod('a', 'Always')));
    writeFileSync(join(tree, 'apps', 'web', 'c.yaml'), stringify(pod('c', 'Always')));
    writeFileSync(join(tree, 'README.md'), '# not a manifest\n');
    writeFileSync(join(tree, 'empty.yaml'), '# nothing here yet\n');
    writeFileSync(join(tree, 'kustomization.txt'), 'resources: []\n');
    const result = await runMain(['review', tree, '--cluster-state', state]);
    expect(result.code).toBe(0);
    expect(parsed(result.stdout).results.map((r) => r.source)).toEqual([
      join(tree, 'a.json'),
      join(tree, 'apps', 'web', 'c.yaml'),
      join(tree, 'b.yml'),
    ]);
  });

  it('reads many documents from stdin, AdmissionReviews and manifests alike', async () => {
    const stdin = [podReview({ pullPolicy: 'Always' }), pod('m', 'Always')].map((d) => stringify(d)).join('---\n');
    const result = await runMain(['review', '-', '--cluster-state', state], { stdin });
    expect(result.code).toBe(0);
    expect(parsed(result.stdout).results.map((r) => [r.source, r.kind, r.allowed])).toEqual([
      ['stdin: document 1', 'Pod', true],
      ['stdin: document 2', 'Pod', true],
    ]);
  });

  it('reports a broken document by file and position, still reviews the others, and exits 1', async () => {
    const file = write(
      'mixed.yaml',
      `${stringify(pod('a', 'Always'))}---\nkind: [unclosed\n---\n{}\n---\n${stringify(pod('d', 'Always'))}`,
    );
    const result = await runMain(['review', file, '--cluster-state', state]);
    expect(result.code).toBe(1);
    const { summary, results } = parsed(result.stdout);
    expect(results.map((r) => [r.source, r.name ?? r.error?.split(':')[0]])).toEqual([
      [`${file}: document 1`, 'a'],
      [`${file}: document 2`, 'not valid JSON or YAML'],
      [`${file}: document 3`, 'expected a Kubernetes object with apiVersion and kind'],
      [`${file}: document 4`, 'd'],
    ]);
    expect(summary).toMatchObject({ objects: 2, errors: 2 });
    expect(result.stderr).toContain(`admission-chain: ${file}: document 2: not valid JSON or YAML`);
    expect(result.stderr).toContain(`admission-chain: ${file}: document 3: expected a Kubernetes object with apiVersion and kind`);
  });

  it('keeps printing the AdmissionReview for one AdmissionReview, as before, unless -o asks otherwise', async () => {
    const stdin = JSON.stringify(podReview({ pullPolicy: 'Always' }));
    const plain = await runMain(['review', '--cluster-state', state], { stdin });
    expect(JSON.parse(plain.stdout)).toMatchObject({ kind: 'AdmissionReview', response: { allowed: true } });
    const asJson = await runMain(['review', '--cluster-state', state, '-o', 'json'], { stdin });
    expect(parsed(asJson.stdout).results).toMatchObject([{ source: 'stdin', kind: 'Pod', allowed: true }]);
  });

  it('--old takes one manifest only (a usage error)', async () => {
    const file = write('two.yaml', [pod('a', 'Always'), pod('b', 'Always')].map((d) => stringify(d)).join('---\n'));
    const old = write('old.yaml', stringify(pod('a', 'Always')));
    const result = await runMain(['review', '-f', file, '--old', old, '--cluster-state', state]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--old takes one manifest to review, found 2 documents');
  });
});

describe('output formats', () => {
  const file = () => write('two.yaml', [pod('a', 'IfNotPresent'), pod('b', 'Never')].map((d) => stringify(d)).join('---\n'));

  it('-o yaml is the same results as -o json', async () => {
    const f = file();
    const json = await runMain(['review', f, '--cluster-state', state, '-o', 'json']);
    const yaml = await runMain(['review', f, '--cluster-state', state, '-o', 'yaml']);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('-o table prints one row per object and a count line', async () => {
    const f = file();
    const result = await runMain(['review', f, '--cluster-state', state, '-o', 'table', '--phase', 'validating']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SOURCE\s+OBJECT\s+RESULT\s+PLUGIN\s+DETAIL$/);
    expect(lines[1]).toMatch(/document 1\s+Pod default\/a\s+denied\s+AlwaysPullImages\s+pods "a" is forbidden: /);
    expect(lines[2]).toMatch(/document 2\s+Pod default\/b\s+denied\s+AlwaysPullImages\s+pods "b" is forbidden: /);
    expect(lines.at(-1)).toBe('2 objects: 0 allowed, 2 denied, 0 mutated, 2 with warnings');
  });

  it('-o table names the changes of a mutated object', async () => {
    const result = await runMain(['review', file(), '--cluster-state', state, '-o', 'table']);
    expect(result.stdout).toMatch(/Pod default\/a\s+mutated\s+replace \/spec\/containers\/0\/imagePullPolicy/);
  });
});

describe('--fail-on', () => {
  const warnMode = ['--plugin-mode', 'AlwaysPullImages=warn', '--phase', 'validating'];

  it.each([
    ['never', 0],
    ['deny', 0],
    ['warn', 1],
  ])('%s with a warn-mode denial exits %i', async (failOn, code) => {
    const f = write('pod.yaml', stringify(pod('a', 'Never')));
    const result = await runMain(['review', f, '--cluster-state', state, '-o', 'json', '--fail-on', failOn, ...warnMode]);
    expect(result.code).toBe(code);
    expect(parsed(result.stdout).results[0]).toMatchObject({
      allowed: true,
      warnings: expect.arrayContaining([expect.stringMatching(/^\[AlwaysPullImages\] pods "a" is forbidden/)]),
    });
  });

  it('rejects an unknown value as a usage error', async () => {
    const result = await runMain(['review', '--cluster-state', state, '--fail-on', 'sometimes'], { stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("argument 'sometimes' is invalid");
  });

  it('deny exits 1 for one denied AdmissionReview too, printing the review as before', async () => {
    const stdin = JSON.stringify(podReview({ pullPolicy: 'Never' }));
    const result = await runMain(['review', '--cluster-state', state, '--phase', 'validating', '--fail-on', 'deny'], { stdin });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).response.allowed).toBe(false);
    expect(result.stderr).toBe('');
  });
});

describe('explain over many documents', () => {
  it('heads each object, explains each denial, and exits 1 under --fail-on deny', async () => {
    const f = write('two.yaml', [pod('a', 'Always'), pod('b', 'Never')].map((d) => stringify(d)).join('---\n'));
    const result = await runMain(['explain', f, '--cluster-state', state, '--phase', 'validating', '--fail-on', 'deny']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Pod default/a (${f}: document 1): allowed`);
    expect(result.stdout).toContain(`Pod default/b (${f}: document 2): denied by AlwaysPullImages (500): pods "b" is forbidden:`);
  });

  it("explains a Deployment's pod as created by its controller", async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: pod('x', 'Never').spec } },
    };
    const f = write('deployment.yaml', stringify(deployment));
    const result = await runMain(['explain', f, '--cluster-state', state, '--phase', 'validating']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Deployment default/web (${f}): allowed`);
    expect(result.stdout).toMatch(/Pod default\/web-[a-z0-9]+- \(.*, created by replicaset-controller\): denied by AlwaysPullImages/);
  });
});

describe('--timeout', () => {
  it('bounds each document, not the whole run: a tree that takes longer than the timeout is still reviewed', async () => {
    const docs = Array.from({ length: 4000 }, (_, i) => stringify(pod(`p${i}`, 'Always'))).join('---\n');
    const f = write('many.yaml', docs);
    const started = performance.now();
    const result = await runMain(['review', f, '--cluster-state', state, '-o', 'json', '--fail-on', 'deny', '--timeout', '400ms']);
    const elapsed = performance.now() - started;
    // Only meaningful when the run outlasts one timeout: 4000 documents take about a second.
    expect(elapsed).toBeGreaterThan(400);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(parsed(result.stdout).summary).toMatchObject({ objects: 4000, allowed: 4000, denied: 0 });
  });
});
