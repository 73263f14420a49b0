// PodNodeSelector's configuration (upstream readConfig): the default and whitelists, upstream's
// defaults when there is none, Go's case-insensitive field name, and start-up errors that name the
// source, the plugin and the field.
import { describe, expect, it } from 'vitest';
import { parseConfiguration } from './configuration.ts';

const source = 'admission.yaml plugins[0].configuration';
const parse = (...documents: unknown[]) => parseConfiguration({ source, documents }, 'PodNodeSelector');
const plain = (config: ReturnType<typeof parse>) => ({
  clusterDefaultNodeSelector: Object.fromEntries(config.clusterDefaultNodeSelector),
  whitelists: Object.fromEntries([...config.whitelists].map(([ns, labels]) => [ns, Object.fromEntries(labels)])),
});

describe('parseConfiguration', () => {
  it('without a configuration: no default, no whitelists', () => {
    expect(plain(parseConfiguration(undefined, 'PodNodeSelector'))).toEqual({ clusterDefaultNodeSelector: {}, whitelists: {} });
    expect(plain(parse())).toEqual({ clusterDefaultNodeSelector: {}, whitelists: {} });
    expect(plain(parse(null, {}))).toEqual({ clusterDefaultNodeSelector: {}, whitelists: {} });
  });

  it("reads the default and each namespace's whitelist", () => {
    const config = parse({
      podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=dev', 'team-a': 'pool=a, env = dev', 'team-b': '' },
    });
    expect(plain(config)).toEqual({
      clusterDefaultNodeSelector: { env: 'dev' },
      whitelists: { clusterDefaultNodeSelector: { env: 'dev' }, 'team-a': { pool: 'a', env: 'dev' }, 'team-b': {} },
    });
  });

  it('matches the field name as Go does, case-insensitively; null values are ""', () => {
    expect(plain(parse({ PodNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b', 'team-a': null } }))).toEqual({
      clusterDefaultNodeSelector: { a: 'b' },
      whitelists: { clusterDefaultNodeSelector: { a: 'b' }, 'team-a': {} },
    });
  });

  it('takes the first document with content', () => {
    expect(
      plain(
        parse(
          null,
          { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b' } },
          { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'c=d' } },
        ),
      ).clusterDefaultNodeSelector,
    ).toEqual({ a: 'b' });
  });

  it.each([
    [
      { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env' } },
      `${source}: plugin PodNodeSelector: podNodeSelectorPluginConfig.clusterDefaultNodeSelector: invalid selector: [env]`,
    ],
    [
      { podNodeSelectorPluginConfig: { 'team-a': 'a=b=c' } },
      `${source}: plugin PodNodeSelector: podNodeSelectorPluginConfig.team-a: invalid selector: [a b c]`,
    ],
    [
      { podNodeSelectorPluginConfig: { 'team-a': 5 } },
      `${source}: plugin PodNodeSelector: podNodeSelectorPluginConfig.team-a: expected a label selector string, got number 5`,
    ],
    [
      { podNodeSelectorPluginConfig: ['a=b'] },
      `${source}: plugin PodNodeSelector: podNodeSelectorPluginConfig: expected a map of label selectors, got a list`,
    ],
    [
      'podNodeSelectorPluginConfig',
      `${source}: plugin PodNodeSelector: expected an object with podNodeSelectorPluginConfig, got string "podNodeSelectorPluginConfig"`,
    ],
  ])('refuses %j', (document, message) => {
    expect(() => parse(document)).toThrow(message);
  });
});
