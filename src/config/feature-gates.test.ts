import { describe, expect, it } from 'vitest';
import { parseFeatureGates } from './feature-gates.ts';

describe('--feature-gates', () => {
  it('is empty when not given', () => {
    expect(parseFeatureGates(undefined)).toEqual({});
    expect(parseFeatureGates([''])).toEqual({});
  });

  it.each([
    { values: ['VolumeAttributesClass=true'], expected: { VolumeAttributesClass: true } },
    { values: ['VolumeAttributesClass=false'], expected: { VolumeAttributesClass: false } },
    { values: ['VolumeAttributesClass=False'], expected: { VolumeAttributesClass: false } },
    { values: [' VolumeAttributesClass = true '], expected: { VolumeAttributesClass: true } },
    // Repeated or comma-separated, the last one wins (as kube-apiserver's map flag).
    { values: ['VolumeAttributesClass=true', 'VolumeAttributesClass=false'], expected: { VolumeAttributesClass: false } },
    { values: ['VolumeAttributesClass=false,VolumeAttributesClass=true'], expected: { VolumeAttributesClass: true } },
  ])('$values', ({ values, expected }) => {
    expect(parseFeatureGates(values)).toEqual(expected);
  });

  it('refuses a gate no plugin here reads, naming the ones it knows', () => {
    expect(() => parseFeatureGates(['SidecarContainers=true'])).toThrow(
      '--feature-gates "SidecarContainers=true": unrecognized feature gate "SidecarContainers"; the plugins here read only VolumeAttributesClass',
    );
  });

  it.each(['VolumeAttributesClass', 'VolumeAttributesClass=', 'VolumeAttributesClass=yes', 'VolumeAttributesClass=1'])(
    'refuses %j: a gate takes true or false',
    (entry) => {
      expect(() => parseFeatureGates([entry])).toThrow(
        `--feature-gates ${JSON.stringify(entry)}: expected VolumeAttributesClass=true or VolumeAttributesClass=false`,
      );
    },
  );
});
