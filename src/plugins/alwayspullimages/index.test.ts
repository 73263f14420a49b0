// Upstream plugin/pkg/admission/alwayspullimages/admission_test.go, every test and row, with the Go
// Pod structs written as the JSON pods a webhook receives (zero-valued Go fields are simply absent).
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { rejectedWith } from '../../../test/support/rejections.ts';
import { Operation } from '../../admission/operation.ts';
import type { Pod } from '../../api/core.ts';
import { alwaysPullImages, definition } from './index.ts';

const context = requestContext();

function container(name: string, image: string, imagePullPolicy?: string) {
  return imagePullPolicy === undefined ? { name, image } : { name, image, imagePullPolicy };
}

function imageVolume(name: string, pullPolicy: string) {
  return { name, image: { pullPolicy } };
}

function pod(name: string, namespace: string, spec: Pod['spec'], annotations?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: annotations ? { name, namespace, annotations } : { name, namespace },
    spec,
  };
}

/** admissiontesting.WithReinvocationTesting: admit runs twice and must give the same object. */
function admitWithReinvocation(attributes: ReturnType<typeof attributesRecord>) {
  const plugin = alwaysPullImages();
  plugin.admit!(attributes, context);
  const once = structuredClone(attributes.object);
  plugin.admit!(attributes, context);
  expect(attributes.object).toEqual(once);
}

describe('AlwaysPullImages definition', () => {
  it('is named AlwaysPullImages, needs no ports and handles CREATE and UPDATE only', () => {
    expect(definition.name).toBe('AlwaysPullImages');
    expect(definition.needs).toEqual([]);
    const plugin = alwaysPullImages();
    expect(plugin.name).toBe('AlwaysPullImages');
    expect([Operation.Create, Operation.Update, Operation.Delete, Operation.Connect].map((op) => plugin.handles(op))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

// TestAdmission
it('TestAdmission: every init container, container and image volume pulls Always after CREATE', () => {
  const object = pod('123', 'test', {
    initContainers: [
      container('init1', 'image'),
      container('init2', 'image', 'Never'),
      container('init3', 'image', 'IfNotPresent'),
      container('init4', 'image', 'Always'),
    ],
    containers: [
      container('ctr1', 'image'),
      container('ctr2', 'image', 'Never'),
      container('ctr3', 'image', 'IfNotPresent'),
      container('ctr4', 'image', 'Always'),
    ],
    volumes: [imageVolume('volume1', 'Never'), imageVolume('volume2', 'IfNotPresent'), imageVolume('volume3', 'Always')],
  });
  const attributes = attributesRecord(object, { name: '123', namespace: 'test' });
  admitWithReinvocation(attributes);
  const admitted = attributes.object as Pod;
  for (const c of [...admitted.spec!.initContainers!, ...admitted.spec!.containers!]) {
    expect(c.imagePullPolicy, c.name).toBe('Always');
  }
  for (const v of admitted.spec!.volumes!) expect(v.image?.pullPolicy, v.name).toBe('Always');
});

// TestValidate
it('TestValidate: one forbidden error per offending field, aggregated in visiting order', () => {
  const object = pod('123', 'test', {
    initContainers: [
      container('init1', 'image'),
      container('init2', 'image', 'Never'),
      container('init3', 'image', 'IfNotPresent'),
      container('init4', 'image', 'Always'),
    ],
    containers: [
      container('ctr1', 'image'),
      container('ctr2', 'image', 'Never'),
      container('ctr3', 'image', 'IfNotPresent'),
      container('ctr4', 'image', 'Always'),
    ],
    volumes: [
      imageVolume('volume1', ''),
      imageVolume('volume2', 'Never'),
      imageVolume('volume3', 'IfNotPresent'),
      imageVolume('volume4', 'Always'),
    ],
  });
  const expectedError =
    '[' +
    'pods "123" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "": supported values: "Always", ' +
    'pods "123" is forbidden: spec.initContainers[1].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
    'pods "123" is forbidden: spec.initContainers[2].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
    'pods "123" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "": supported values: "Always", ' +
    'pods "123" is forbidden: spec.containers[1].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
    'pods "123" is forbidden: spec.containers[2].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
    'pods "123" is forbidden: spec.volumes[0].image.pullPolicy: Unsupported value: "": supported values: "Always", ' +
    'pods "123" is forbidden: spec.volumes[1].image.pullPolicy: Unsupported value: "Never": supported values: "Always", ' +
    'pods "123" is forbidden: spec.volumes[2].image.pullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"' +
    ']';
  const attributes = attributesRecord(object, { name: '123', namespace: 'test' });
  const error = rejectedWith(() => alwaysPullImages().validate!(attributes, context));
  expect(error.message).toBe(expectedError);
});

// TestOtherResources
describe('TestOtherResources: a no-op for other resources and subresources, an error for non-pods', () => {
  const testPod = () => pod('testname', 'testnamespace', { containers: [container('ctr2', 'image', 'Never')] });
  it.each([
    { name: 'non-pod resource', kind: 'Foo', resource: 'foos', subresource: '', object: testPod(), expectError: false },
    { name: 'pod subresource', kind: 'Pod', resource: 'pods', subresource: 'exec', object: testPod(), expectError: false },
    {
      name: 'non-pod object',
      kind: 'Pod',
      resource: 'pods',
      subresource: '',
      object: { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: {} },
      expectError: true,
    },
  ])('$name', ({ kind, resource, subresource, object, expectError }) => {
    const attributes = attributesRecord(object, {
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource },
      subresource,
      name: 'testname',
      namespace: 'testnamespace',
    });
    const plugin = alwaysPullImages();
    if (expectError) {
      const error = rejectedWith(() => plugin.admit!(attributes, context));
      expect(error.status).toEqual({
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'Resource was marked with kind Pod but was unable to be converted',
      });
      return;
    }
    admitWithReinvocation(attributes);
    expect((attributes.object as Pod).spec!.containers![0]!.imagePullPolicy).toBe('Never');
  });
});

// TestUpdatePod. Upstream's two rows carry the subresource "finalizers" and operation Create, so
// both are skipped as subresource requests; they are kept as upstream wrote them. The no-new-image
// skip itself is covered in update.test.ts.
describe('TestUpdatePod: a no-op for a pod update that changes no image', () => {
  const oldPod = () => pod('testname', 'testnamespace', { containers: [container('ctr2', 'image', 'IfNotPresent')] });
  const annotatedPod = () =>
    pod('testname', 'testnamespace', { containers: [container('ctr2', 'image', 'IfNotPresent')] }, { test: 'test' });
  const podWithNewImage = () =>
    pod('testname', 'testnamespace', { containers: [container('ctr2', 'image2', 'IfNotPresent')] }, { test: 'test' });
  it.each([
    {
      name: 'update IfNotPresent pod annotations',
      object: annotatedPod(),
      oldObject: oldPod(),
      subresource: 'finalizers',
      expectIgnore: true,
    },
    {
      name: 'update IfNotPresent pod image',
      object: podWithNewImage(),
      oldObject: oldPod(),
      subresource: 'finalizers',
      expectIgnore: false,
    },
  ])('$name', ({ object, oldObject, subresource, expectIgnore }) => {
    const attributes = attributesRecord(object, { oldObject, subresource, name: 'testname', namespace: 'testnamespace' });
    expect(() => admitWithReinvocation(attributes)).not.toThrow();
    if (expectIgnore) expect((attributes.object as Pod).spec!.containers![0]!.imagePullPolicy).toBe('IfNotPresent');
  });
});
