// The UPDATE skip (upstream isUpdateWithNoNewImages, applied by shouldIgnore in both admit and
// validate): an update that brings no container image the old pod lacked is left alone.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { Pod } from '../../api/core.ts';
import { isStatusError } from '../../api/status-error.ts';
import type { Logger } from '../../ports/logger.ts';
import { isUpdateWithNoNewImages } from './ignore.ts';
import { alwaysPullImages } from './index.ts';

const context = requestContext();

function podWith(spec: Pod['spec']): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'team-a' }, spec };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger & { warnings: string[] } = {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (first: unknown) => void warnings.push(String(first)),
    error: () => {},
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger;
}

const oldPod = () =>
  podWith({
    initContainers: [{ name: 'init', image: 'busybox:1', imagePullPolicy: 'IfNotPresent' }],
    containers: [{ name: 'app', image: 'app:1', imagePullPolicy: 'IfNotPresent' }],
    ephemeralContainers: [{ name: 'debug', image: 'debug:1', imagePullPolicy: 'IfNotPresent' }],
  });

describe('isUpdateWithNoNewImages', () => {
  it.each([
    { name: 'same images, only metadata changed', mutate: (_: Pod) => {}, skip: true },
    {
      name: 'an image moved between lists is still an old image',
      mutate: (p: Pod) => (p.spec!.containers![0]!.image = 'busybox:1'),
      skip: true,
    },
    { name: 'new container image', mutate: (p: Pod) => (p.spec!.containers![0]!.image = 'app:2'), skip: false },
    { name: 'new init container image', mutate: (p: Pod) => (p.spec!.initContainers![0]!.image = 'busybox:2'), skip: false },
    {
      name: 'new ephemeral container image',
      mutate: (p: Pod) => p.spec!.ephemeralContainers!.push({ name: 'debug2', image: 'debug:2' }),
      skip: false,
    },
    {
      name: 'an image volume is not compared (upstream compares container images only)',
      mutate: (p: Pod) => (p.spec!.volumes = [{ name: 'data', image: { reference: 'data:9', pullPolicy: 'IfNotPresent' } }]),
      skip: true,
    },
  ])('$name → skip $skip', ({ mutate, skip }) => {
    const object = oldPod();
    mutate(object);
    const attributes = attributesRecord(object, { operation: Operation.Update, oldObject: oldPod(), name: 'web-1' });
    expect(isUpdateWithNoNewImages(attributes, recordingLogger())).toBe(skip);
  });

  it('never skips a CREATE, even with an identical old object', () => {
    const attributes = attributesRecord(oldPod(), { oldObject: oldPod() });
    expect(isUpdateWithNoNewImages(attributes, recordingLogger())).toBe(false);
  });

  it('does not skip, and warns, when the old object is not a Pod', () => {
    const logger = recordingLogger();
    const attributes = attributesRecord(oldPod(), { operation: Operation.Update, oldObject: { kind: 'Service' } });
    expect(isUpdateWithNoNewImages(attributes, logger)).toBe(false);
    expect(logger.warnings).toEqual(['Resource was marked with kind Pod but old pod was unable to be converted.']);
  });

  it('does not skip, and warns, when the new object is not a Pod', () => {
    const logger = recordingLogger();
    const attributes = attributesRecord([], { operation: Operation.Update, oldObject: oldPod() });
    expect(isUpdateWithNoNewImages(attributes, logger)).toBe(false);
    expect(logger.warnings).toEqual(['Resource was marked with kind Pod but pod was unable to be converted.']);
  });
});

describe('the skip applies to admit and to validate', () => {
  it('an annotation-only UPDATE is neither mutated nor rejected', () => {
    const object = oldPod();
    object.metadata!.annotations = { touched: 'yes' };
    const attributes = attributesRecord(object, { operation: Operation.Update, oldObject: oldPod(), name: 'web-1' });
    const plugin = alwaysPullImages();
    plugin.admit!(attributes, context);
    expect(attributes.object).toEqual(object);
    expect((attributes.object as Pod).spec!.containers![0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(() => plugin.validate!(attributes, context)).not.toThrow();
  });

  it('an UPDATE with a new image is mutated, and validated when it still lacks Always', () => {
    const object = oldPod();
    object.spec!.containers![0]!.image = 'app:2';
    const attributes = attributesRecord(object, { operation: Operation.Update, oldObject: oldPod(), name: 'web-1' });
    const plugin = alwaysPullImages();

    const unmutated = structuredClone(attributes);
    try {
      plugin.validate!(unmutated, context);
      expect.unreachable('validate should reject');
    } catch (error) {
      if (!isStatusError(error)) throw error;
      expect(error.message).toBe(
        '[' +
          'pods "web-1" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
          'pods "web-1" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
          'pods "web-1" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"' +
          ']',
      );
    }

    plugin.admit!(attributes, context);
    const spec = (attributes.object as Pod).spec!;
    expect([spec.initContainers![0]!, spec.containers![0]!, spec.ephemeralContainers![0]!].map((c) => c.imagePullPolicy)).toEqual([
      'Always',
      'Always',
      'Always',
    ]);
    expect(() => plugin.validate!(attributes, context)).not.toThrow();
  });
});
