import { describe, expect, it } from 'vitest';
import type { APIResourceList } from '../local/cluster-state.ts';
import { compareKubeAwareVersions, groupsFromResourceLists, withCustomResources } from './documents.ts';
import { NoKindMatchError } from './errors.ts';
import { DiscoveryRestMapping, guessPluralResource } from './rest-mapping.ts';

const lists: APIResourceList[] = [
  {
    apiVersion: 'v1',
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      { name: 'pods', namespaced: true, kind: 'Pod' },
      { name: 'pods/status', namespaced: true, kind: 'Pod' },
      { name: 'pods/binding', namespaced: true, kind: 'Binding' },
      { name: 'nodes', namespaced: false, kind: 'Node' },
    ],
  },
  {
    apiVersion: 'v1',
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v2',
    resources: [{ name: 'horizontalpodautoscalers', namespaced: true, kind: 'HorizontalPodAutoscaler' }],
  },
  {
    apiVersion: 'v1',
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v1',
    resources: [{ name: 'horizontalpodautoscalers', namespaced: true, kind: 'HorizontalPodAutoscaler' }],
  },
];

const mapping = new DiscoveryRestMapping(groupsFromResourceLists(lists));

describe('DiscoveryRestMapping.mappingsFor (upstream RESTMappings)', () => {
  it('maps a kind in a version to its resource and scope', () => {
    expect(mapping.mappingsFor({ group: '', kind: 'Pod' }, ['v1'])).toEqual([
      {
        resource: { group: '', version: 'v1', resource: 'pods' },
        groupVersionKind: { group: '', version: 'v1', kind: 'Pod' },
        scope: 'namespace',
      },
    ]);
    expect(mapping.mappingsFor({ group: '', kind: 'Node' }, ['v1'])[0]?.scope).toBe('root');
  });

  it('ignores subresources: their kinds map to nothing', () => {
    expect(() => mapping.mappingsFor({ group: '', kind: 'Binding' }, ['v1'])).toThrow('no matches for kind "Binding" in version "v1"');
  });

  it('without a version, answers every version of the group in discovery order', () => {
    expect(mapping.mappingsFor({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }, ['']).map((m) => m.resource.version)).toEqual([
      'v2',
      'v1',
    ]);
    expect(mapping.mappingsFor({ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }, []).map((m) => m.resource.version)).toEqual([
      'v2',
      'v1',
    ]);
  });

  it('registers the lower-cased kind and the guessed <Kind>List as upstream does', () => {
    expect(mapping.mappingsFor({ group: '', kind: 'pod' }, ['v1'])[0]?.resource.resource).toBe('pods');
    expect(mapping.mappingsFor({ group: '', kind: 'PodList' }, ['v1'])[0]?.resource.resource).toBe('podlists');
  });

  it.each([
    [{ group: '', kind: 'Pod' }, ['v2'], 'no matches for kind "Pod" in version "v2"'],
    [{ group: 'apps', kind: 'Deployment' }, ['v1'], 'no matches for kind "Deployment" in version "apps/v1"'],
    [{ group: 'apps', kind: 'Deployment' }, [], 'no matches for kind "Deployment" in group "apps"'],
    [{ group: 'apps', kind: 'Deployment' }, [''], 'no matches for kind "Deployment" in version "apps/"'],
    [
      { group: 'apps', kind: 'Deployment' },
      ['v1beta1', 'v1', 'v1'],
      'no matches for kind "Deployment" in versions ["apps/v1" "apps/v1beta1"]',
    ],
  ])('a miss is a NoKindMatchError worded as apimachinery words it: %j %j', (gk, versions, message) => {
    let thrown: unknown;
    try {
      mapping.mappingsFor(gk, versions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NoKindMatchError);
    expect((thrown as Error).message).toBe(message);
  });
});

describe('CRDs', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      scope: 'Cluster' as const,
      versions: [
        { name: 'v1alpha1', served: true },
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: false },
      ],
    },
  };

  it('adds every served version, cluster-scoped as declared', () => {
    const m = new DiscoveryRestMapping(withCustomResources(groupsFromResourceLists(lists), [crd]));
    expect(m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v1'])).toEqual([
      {
        resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
        groupVersionKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        scope: 'root',
      },
    ]);
    expect(m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['']).map((x) => x.resource.version)).toEqual(['v1', 'v1alpha1']);
    expect(() => m.mappingsFor({ group: 'example.com', kind: 'Widget' }, ['v2'])).toThrow(
      'no matches for kind "Widget" in version "example.com/v2"',
    );
  });
});

describe('helpers', () => {
  it.each([
    ['Pod', 'pods'],
    ['Endpoints', 'endpoints'],
    ['Ingress', 'ingresses'],
    ['NetworkPolicy', 'networkpolicies'],
    ['List', 'lists'],
  ])('guesses %s → %s', (kind, plural) => {
    expect(guessPluralResource(kind)).toBe(plural);
  });

  it('orders versions as Kubernetes does', () => {
    expect(['v1alpha1', 'foo', 'v2', 'v1beta2', 'v1', 'v10beta1', 'v1beta1'].sort(compareKubeAwareVersions)).toEqual([
      'v2',
      'v1',
      'v10beta1',
      'v1beta2',
      'v1beta1',
      'v1alpha1',
      'foo',
    ]);
  });
});
