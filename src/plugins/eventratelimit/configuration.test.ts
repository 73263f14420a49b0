// Upstream validation_test.go TestValidateConfiguration, every row (testdata/upstream-cases.ts),
// through the decoder as the AdmissionConfiguration file gives it; then upstream's exact field
// errors, what a missing configuration does, and documents the decoder refuses.
import { describe, expect, it } from 'vitest';
import type { PluginConfiguration } from '../../ports/plugin-configuration.ts';
import { parseConfiguration, validateConfiguration } from './configuration.ts';
import { validateConfigurationCases } from './testdata/upstream-cases.ts';

const source = 'admission.yaml plugins[0].configuration';
const apiVersion = 'eventratelimit.admission.k8s.io/v1alpha1';
const configurationOf = (document: unknown): PluginConfiguration => ({ source, documents: [document] });
const parse = (document: unknown) => parseConfiguration(configurationOf(document), 'EventRateLimit');
const errorOf = (document: unknown) => {
  try {
    parse(document);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe('TestValidateConfiguration', () => {
  it.each(validateConfigurationCases)('$name', ({ limits, valid }) => {
    const document = { apiVersion, kind: 'Configuration', ...(limits === undefined ? {} : { limits }) };
    if (valid) expect(parse(document).limits).toHaveLength(limits!.length);
    else expect(() => parse(document)).toThrow(`${source}: plugin EventRateLimit: `);
  });
});

describe("upstream's messages", () => {
  it.each([
    [undefined, 'limits: Invalid value: null: must not be empty'],
    [[], 'limits: Invalid value: []: must not be empty'],
    [[{ burst: 25, qps: 10 }], 'limits[0].type: Unsupported value: "": supported values: "Server", "Namespace", "User", "SourceAndObject"'],
    [
      [{ type: 'a<b', burst: 1, qps: 1 }],
      'limits[0].type: Unsupported value: "a\\u003cb": supported values: "Server", "Namespace", "User", "SourceAndObject"',
    ],
    [[{ type: 'Server', qps: 1 }], 'limits[0].burst: Invalid value: 0: must be positive'],
    [[{ type: 'Server', burst: 5, qps: -2 }], 'limits[0].qps: Invalid value: -2: must be positive'],
    [[{ type: 'Namespace', burst: 10, qps: 2, cacheSize: -1 }], 'limits[0].cacheSize: Invalid value: -1: must not be negative'],
    // Server ignores cacheSize, so a negative one passes.
    [[{ type: 'Server', burst: 1, qps: 1, cacheSize: -1 }], undefined],
    [
      [{ type: 'User' }, { type: 'Server', burst: 1, qps: 1 }, { type: 'SourceAndObject', burst: 1, qps: 1, cacheSize: -5 }],
      '[limits[0].burst: Invalid value: 0: must be positive, limits[0].qps: Invalid value: 0: must be positive, limits[2].cacheSize: Invalid value: -5: must not be negative]',
    ],
  ])('%j', (limits, expected) => {
    const document = { apiVersion, kind: 'Configuration', ...(limits === undefined ? {} : { limits }) };
    if (expected === undefined) expect(() => parse(document)).not.toThrow();
    else expect(errorOf(document)).toBe(`${source}: plugin EventRateLimit: ${expected}`);
  });

  it('de-duplicates identical messages, as ToAggregate does', () => {
    expect(validateConfiguration({ limits: [] })).toEqual(['limits: Invalid value: []: must not be empty']);
  });
});

describe('decoding', () => {
  it('keeps each limit as given, cacheSize 0 standing for the default', () => {
    expect(parse({ apiVersion, kind: 'Configuration', limits: [{ type: 'SourceAndObject', qps: 5, burst: 20, unknown: true }] })).toEqual({
      limits: [{ type: 'SourceAndObject', qps: 5, burst: 20, cacheSize: 0 }],
    });
  });

  it('refuses to start without a configuration, as kube-apiserver does', () => {
    expect(() => parseConfiguration(undefined, 'EventRateLimit')).toThrow(
      `admission plugin EventRateLimit needs a configuration (an ${apiVersion} Configuration in --admission-control-config-file): limits: Invalid value: null: must not be empty`,
    );
  });

  it.each([
    [null, ': expected a eventratelimit.admission.k8s.io/v1alpha1 Configuration, got nothing'],
    [{ kind: 'Configuration', limits: [] }, 'apiVersion: missing: expected one of eventratelimit.admission.k8s.io/v1alpha1'],
    [
      { apiVersion: 'eventratelimit.admission.k8s.io/v1', kind: 'Configuration' },
      'apiVersion: unknown version "eventratelimit.admission.k8s.io/v1"',
    ],
    [{ apiVersion, kind: 'Config' }, 'kind: expected "Configuration", got string "Config"'],
    [{ apiVersion, kind: 'Configuration', limits: { type: 'Server' } }, 'limits: expected a list of limits, got an object'],
    [{ apiVersion, kind: 'Configuration', limits: ['Server'] }, 'limits[0]: expected a limit, got string "Server"'],
    [{ apiVersion, kind: 'Configuration', limits: [{ type: 1 }] }, 'limits[0].type: expected a string, got number 1'],
    [
      { apiVersion, kind: 'Configuration', limits: [{ type: 'Server', qps: 1.5 }] },
      'limits[0].qps: expected a 32-bit integer, got number 1.5',
    ],
    [{ apiVersion, kind: 'Configuration', limits: [{ type: 'Server', burst: 2 ** 31 }] }, 'limits[0].burst: expected a 32-bit integer'],
    [
      { apiVersion, kind: 'Configuration', limits: [{ type: 'Server', burst: '5' }] },
      'limits[0].burst: expected a 32-bit integer, got string "5"',
    ],
  ])('refuses %j', (document, expected) => {
    expect(errorOf(document)).toContain(expected);
  });
});
