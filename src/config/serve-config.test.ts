// Checks `serve` makes of its flags at start-up: the body limit against the in-flight budget (every
// body the limit lets in can be handled, the lightest one included), --feature-gates and
// --plugin-exemptions-file.
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testServeConfig } from '../../test/support/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../plugins/index.ts';
import { jsonShape, requestWeight } from '../server/json-weight.ts';
import { addServeOptions, minimumInFlightPerBodyByte, parseServeConfig, type RawServeOptions } from './serve-config.ts';

const serve = (maxRequestBodyBytes: number, maxInFlightBytes: number) =>
  testServeConfig({
    tlsCertFile: 'a',
    tlsPrivateKeyFile: 'b',
    maxRequestBodyBytes: String(maxRequestBodyBytes),
    maxInFlightBytes: String(maxInFlightBytes),
  });

describe('--max-in-flight-bytes against --max-request-body-bytes', () => {
  const body = 1024 * 1024;

  it('refuses a budget that the largest body could never fit', () => {
    expect(() => serve(body, minimumInFlightPerBodyByte * body - 1)).toThrow(
      `--max-in-flight-bytes ${minimumInFlightPerBodyByte * body - 1} must be at least ${minimumInFlightPerBodyByte} times --max-request-body-bytes (${body}), or the largest body could never be handled`,
    );
  });

  it('at the smallest budget allowed, the lightest body of the largest size fits it to mutate', () => {
    const config = serve(body, minimumInFlightPerBodyByte * body);
    const lightest = Buffer.from(JSON.stringify('x'.repeat(body - 2)));
    expect(lightest.length).toBe(body);
    expect(requestWeight(jsonShape(lightest), 'admit')).toBeLessThanOrEqual(config.maxInFlightBytes);
  });
});

describe('--feature-gates', () => {
  const serveWith = (featureGates: string[] | undefined) =>
    testServeConfig({ tlsCertFile: 'a', tlsPrivateKeyFile: 'b', ...(featureGates ? { featureGates } : {}) });

  it('overrides nothing when absent', () => {
    expect(serveWith(undefined).featureGates).toEqual({});
  });

  it('carries the gates named, the last one winning', () => {
    expect(serveWith(['VolumeAttributesClass=true', 'VolumeAttributesClass=false']).featureGates).toEqual({ VolumeAttributesClass: false });
  });

  it('refuses a gate no plugin reads', () => {
    expect(() => serveWith(['NoSuchGate=true'])).toThrow('--feature-gates "NoSuchGate=true": unrecognized feature gate "NoSuchGate"');
  });
});

describe('--plugin-exemptions-file', () => {
  const parsed = (args: string[]) => {
    const command = addServeOptions(new Command('serve')).exitOverride();
    command.parse(['--tls-cert-file', 'a', '--tls-private-key-file', 'b', ...args], { from: 'user' });
    return parseServeConfig(command.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins).pluginExemptionsFile;
  };
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('none by default, the file from the flag, or from ADMISSION_CHAIN_PLUGIN_EXEMPTIONS_FILE', () => {
    expect(parsed([])).toBeUndefined();
    expect(parsed(['--plugin-exemptions-file', 'exemptions.yaml'])).toBe('exemptions.yaml');
    vi.stubEnv('ADMISSION_CHAIN_PLUGIN_EXEMPTIONS_FILE', 'from-env.yaml');
    expect(parsed([])).toBe('from-env.yaml');
    expect(parsed(['--plugin-exemptions-file', 'flag.yaml'])).toBe('flag.yaml');
  });
});
