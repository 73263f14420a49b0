// The install commands the docs print work as written: every `helm install` and `helm upgrade` in the
// shell blocks of docs/deploy.md and README.md (and in the example values files' headers) is run as
// `helm template` with the same arguments, the documented shell variables set, and must render. The
// commands name the release and namespace only through those variables, and set the image.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCertificates } from '../../src/tls/generate.ts';
import { runHelmArgs } from './helm.ts';
import { repoRoot } from './tools.ts';

const caBase64 = Buffer.from((await generateCertificates({ commonName: 'docs-ca' })).caCert).toString('base64');
const variables: Record<string, string> = {
  release: 'docs-release',
  namespace: 'docs-namespace',
  image: 'registry.example.com/admission-chain',
  tag: '0.1.0',
};

/** Shell lines of fenced sh blocks (or `#   ` header comments), continuation lines joined. */
function shellCommands(text: string, source: 'markdown' | 'values-header'): string[] {
  const lines: string[] = [];
  if (source === 'markdown') {
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) lines.push(...(block[1] ?? '').split('\n').map((l) => l.trim()));
  } else {
    for (const line of text.split('\n')) if (line.startsWith('#   ')) lines.push(line.slice(4).trim());
  }
  const commands: string[] = [];
  let pending = '';
  for (const line of lines) {
    pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
    if (!line.endsWith('\\')) {
      commands.push(pending.trim());
      pending = '';
    }
  }
  return commands;
}

/** Splits a command into words the way the shell would for these (quotes, $var, one $(…) for the CA). */
function words(command: string): string[] {
  const substituted = command
    .replaceAll(`"$(base64 < tls/ca.crt | tr -d '\\n')"`, caBase64)
    .replace(/\$\{?(\w+)\}?/g, (match, name: string) => variables[name] ?? match);
  return [...substituted.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)]
    .map((m) => (m[1] ?? m[2] ?? m[3]) as string)
    .map((w) => w.replace(/"/g, ''));
}

const sources: Array<[string, string, 'markdown' | 'values-header']> = [
  ['docs/deploy.md', readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8'), 'markdown'],
  ['README.md', readFileSync(join(repoRoot, 'README.md'), 'utf8'), 'markdown'],
  ...readdirSync(join(repoRoot, 'examples/values')).map((f): [string, string, 'values-header'] => [
    `examples/values/${f}`,
    readFileSync(join(repoRoot, 'examples/values', f), 'utf8'),
    'values-header',
  ]),
];
const helmCommands = sources.flatMap(([file, text, kind]) =>
  shellCommands(text, kind)
    .map((line) => line.replace(/\s+#.*$/, ''))
    .filter((line) => /^helm (install|upgrade) /.test(line) && !line.includes('…'))
    .map((line): [string, string] => [file, line]),
);

describe('the documented helm commands', () => {
  it('are found in every place that shows one', () => {
    const files = new Set(helmCommands.map(([file]) => file));
    for (const file of ['docs/deploy.md', 'README.md', 'examples/values/bring-your-own-tls.yaml', 'examples/values/cert-manager.yaml'])
      expect(files).toContain(file);
    expect(helmCommands.length).toBeGreaterThanOrEqual(8);
  });

  it.each(helmCommands)('%s: %s', (_file, command) => {
    expect(command).toMatch(/^helm (install|upgrade) "\$release" charts\/admission-chain (-n|--namespace) "\$namespace"/);
    const [, verb, release, chart, ...rest] = words(command);
    // An upgrade with --reuse-values reuses what the install set: the documented install first.
    const installed = [
      '--set',
      `fullnameOverride=${variables.release}`,
      '--set',
      `image.repository=${variables.image}`,
      '--set',
      `image.tag=${variables.tag}`,
    ];
    const args = verb === 'upgrade' ? [...installed, ...rest.filter((w) => w !== '--reuse-values')] : rest;
    if (verb === 'install') expect(args.join(' ')).toContain(`image.repository=${variables.image}`);
    const result = runHelmArgs([
      'template',
      release!,
      join(repoRoot, chart!),
      ...args.map((a) => (a.startsWith('examples/') ? join(repoRoot, a) : a)),
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`name: ${variables.release}\n`);
    expect(result.stdout).toContain(`namespace: ${variables.namespace}\n`);
  });
});
