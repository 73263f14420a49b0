import { describe, expect, it } from 'vitest';
import { featureGatesAt, featureGatesFromOverrides } from '../ports/feature-gates.ts';
import { Feature, featureDefault, featureVersionOf, formatVersion } from './feature-gates.ts';

const v = (minor: number) => ({ major: 1, minor });

describe('feature gate defaults per Kubernetes version (upstream kube_features.go)', () => {
  it.each([
    { version: v(28), enabled: false, locked: false }, // no such gate yet
    { version: v(29), enabled: false, locked: false }, // alpha
    { version: v(30), enabled: false, locked: false },
    { version: v(31), enabled: false, locked: false }, // beta, still off
    { version: v(33), enabled: false, locked: false },
    { version: v(34), enabled: true, locked: false }, // GA
    { version: v(35), enabled: true, locked: false },
    { version: v(36), enabled: true, locked: true },
    { version: v(37), enabled: true, locked: true },
    { version: { major: 2, minor: 0 }, enabled: true, locked: true },
  ])('VolumeAttributesClass at $version.major.$version.minor: enabled $enabled, locked $locked', ({ version, enabled, locked }) => {
    expect(featureDefault(Feature.VolumeAttributesClass, version)).toEqual({ enabled, locked });
    expect(featureGatesAt(version).enabled(Feature.VolumeAttributesClass)).toBe(enabled);
  });

  it.each([
    { version: v(32), enabled: false }, // no such gate yet
    { version: v(33), enabled: false }, // alpha
    { version: v(34), enabled: false },
    { version: v(35), enabled: true }, // beta, on
    { version: v(37), enabled: true },
  ])('PodTopologyLabelsAdmission at $version.major.$version.minor: enabled $enabled, never locked', ({ version, enabled }) => {
    expect(featureDefault(Feature.PodTopologyLabelsAdmission, version)).toEqual({ enabled, locked: false });
  });

  it('lets an override win over the default, either way', () => {
    expect(featureGatesAt(v(33), { VolumeAttributesClass: true }).enabled(Feature.VolumeAttributesClass)).toBe(true);
    expect(featureGatesAt(v(35), { VolumeAttributesClass: false }).enabled(Feature.VolumeAttributesClass)).toBe(false);
  });

  it('knows when the overrides alone answer, so the version need not be read', () => {
    expect(featureGatesFromOverrides({})).toBeUndefined();
    expect(featureGatesFromOverrides({ VolumeAttributesClass: true })).toBeUndefined();
    const both = { VolumeAttributesClass: false, PodTopologyLabelsAdmission: true };
    expect(featureGatesFromOverrides(both)?.enabled(Feature.VolumeAttributesClass)).toBe(false);
    expect(featureGatesFromOverrides(both)?.enabled(Feature.PodTopologyLabelsAdmission)).toBe(true);
    expect(featureGatesFromOverrides({ ...both, VolumeAttributesClass: true })?.enabled(Feature.VolumeAttributesClass)).toBe(true);
  });
});

describe('the version feature defaults follow, from /version', () => {
  it.each([
    { name: 'a plain release', info: { major: '1', minor: '33', gitVersion: 'v1.33.2' }, expected: '1.33' },
    {
      name: 'a provider build ("+" after the minor)',
      info: { major: '1', minor: '31+', gitVersion: 'v1.31.4-eks-2d5f260' },
      expected: '1.31',
    },
    {
      name: 'an emulated version (defaults follow it)',
      info: { major: '1', minor: '36', emulationMajor: '1', emulationMinor: '35', gitVersion: 'v1.36.0' },
      expected: '1.35',
    },
    { name: 'no major or minor: gitVersion', info: { major: '', minor: '', gitVersion: 'v1.32.1-gke.1729000' }, expected: '1.32' },
  ])('$name', ({ info, expected }) => {
    expect(formatVersion(featureVersionOf(info))).toBe(expected);
  });

  it('refuses an answer that names no version', () => {
    expect(() => featureVersionOf({ major: 'x', gitVersion: 'unknown' })).toThrow(
      'cannot tell the Kubernetes version from /version: {"major":"x","gitVersion":"unknown"}',
    );
  });
});
