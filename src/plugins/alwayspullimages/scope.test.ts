// Which requests the plugin acts on (upstream shouldIgnore), which bodies count as a Pod, and the
// exact messages a user sees.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { rejectedWith } from '../../../test/support/rejections.ts';
import { Operation } from '../../admission/operation.ts';
import type { Pod } from '../../api/core.ts';
import { alwaysPullImages } from './index.ts';

const context = requestContext();

const neverPod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'team-a' },
  spec: {
    containers: [{ name: 'app', image: 'app:1', imagePullPolicy: 'Never' }],
    ephemeralContainers: [{ name: 'debug', image: 'debug:1', imagePullPolicy: 'Never' }],
  },
});

describe('requests the plugin stays out of', () => {
  it.each([
    {
      name: 'pods/ephemeralcontainers (every subresource is ignored upstream)',
      resource: 'pods',
      subresource: 'ephemeralcontainers',
      group: '',
    },
    { name: 'pods/status', resource: 'pods', subresource: 'status', group: '' },
    { name: 'pods in another API group', resource: 'pods', subresource: '', group: 'metrics.k8s.io' },
    { name: 'another core resource', resource: 'services', subresource: '', group: '' },
  ])('$name', ({ resource, subresource, group }) => {
    const attributes = attributesRecord(neverPod(), {
      operation: Operation.Update,
      oldObject: {},
      resource: { group, version: 'v1', resource },
      subresource,
    });
    const plugin = alwaysPullImages();
    plugin.admit!(attributes, context);
    expect(attributes.object).toEqual(neverPod());
    expect(() => plugin.validate!(attributes, context)).not.toThrow();
  });
});

describe('ephemeral containers in the pod spec', () => {
  it('are mutated and validated like the others, with their own field path', () => {
    const attributes = attributesRecord(neverPod(), { name: 'web-1' });
    const plugin = alwaysPullImages();
    expect(rejectedWith(() => plugin.validate!(attributes, context)).message).toBe(
      '[pods "web-1" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
        'pods "web-1" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"]',
    );
    plugin.admit!(attributes, context);
    expect((attributes.object as Pod).spec!.ephemeralContainers![0]!.imagePullPolicy).toBe('Always');
  });
});

describe('bodies that are not a Pod', () => {
  it.each([
    { name: 'no object', object: undefined },
    { name: 'null', object: null },
    { name: 'an array', object: [] },
    { name: 'a string', object: 'pod' },
    { name: 'kind Service', object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-1' } } },
    { name: 'containers not a list', object: { kind: 'Pod', spec: { containers: { app: {} } } } },
    { name: 'a pull policy that is not a string', object: { kind: 'Pod', spec: { containers: [{ name: 'a', imagePullPolicy: 1 }] } } },
    { name: 'an image volume that is not an object', object: { kind: 'Pod', spec: { volumes: [{ name: 'v', image: 'x' }] } } },
  ])('$name → 400 in admit and in validate', ({ object }) => {
    const plugin = alwaysPullImages();
    for (const phase of ['admit', 'validate'] as const) {
      const error = rejectedWith(() => plugin[phase]!(attributesRecord(object), context));
      expect(error.code).toBe(400);
      expect(error.status.reason).toBe('BadRequest');
      expect(error.message).toBe('Resource was marked with kind Pod but was unable to be converted');
    }
  });

  it('a pod without kind, spec or lists is still a Pod, and an empty one passes validation', () => {
    const plugin = alwaysPullImages();
    for (const object of [{}, { metadata: { name: 'x' } }, { kind: 'Pod', spec: null }, { spec: { containers: null } }]) {
      const attributes = attributesRecord(object);
      plugin.admit!(attributes, context);
      expect(attributes.object).toEqual(object);
      expect(() => plugin.validate!(attributes, context)).not.toThrow();
    }
  });
});

describe('exact messages', () => {
  it('one offending field: the forbidden message alone, as a user sees it', () => {
    const object: Pod = {
      kind: 'Pod',
      metadata: { name: '123' },
      spec: {
        initContainers: [{ name: 'init', image: 'i', imagePullPolicy: 'Never' }],
        containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Always' }],
      },
    };
    const error = rejectedWith(() => alwaysPullImages().validate!(attributesRecord(object, { name: '123' }), context));
    expect(error.message).toBe(
      'pods "123" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"',
    );
    // Upstream returns a utilerrors aggregate, which kube-apiserver reports as a 500 with no reason.
    expect(error.status).toEqual({ status: 'Failure', code: 500, message: error.message });
  });

  it('names the pod by generateName when the request has no name yet, and "Unknown" when it has neither', () => {
    const generated: Pod = { kind: 'Pod', metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    expect(rejectedWith(() => alwaysPullImages().validate!(attributesRecord(generated), context)).message).toBe(
      'pods "web-" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "": supported values: "Always"',
    );
    const anonymous: Pod = { kind: 'Pod', spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent' }] } };
    expect(rejectedWith(() => alwaysPullImages().validate!(attributesRecord(anonymous), context)).message).toBe(
      'pods "Unknown" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"',
    );
  });

  it('quotes values the way Go does', () => {
    const object: Pod = {
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'a"b\\c' }] },
    };
    expect(rejectedWith(() => alwaysPullImages().validate!(attributesRecord(object, { name: 'q' }), context)).message).toBe(
      'pods "q" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "a\\"b\\\\c": supported values: "Always"',
    );
  });

  it('leaves volumes that are not image volumes alone', () => {
    const object: Pod = {
      kind: 'Pod',
      metadata: { name: 'v' },
      spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Always' }], volumes: [{ name: 'scratch', emptyDir: {} }] },
    };
    const attributes = attributesRecord(object, { name: 'v' });
    alwaysPullImages().admit!(attributes, context);
    expect((attributes.object as Pod).spec!.volumes).toEqual([{ name: 'scratch', emptyDir: {} }]);
    expect(() => alwaysPullImages().validate!(attributes, context)).not.toThrow();
  });
});
