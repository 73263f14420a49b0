// Upstream plugin/pkg/admission/alwayspullimages/admission_test.go, every test and row
// (testdata/upstream-cases.ts).
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { rejectedWith } from '../../../test/support/rejections.ts';
import { Operation } from '../../admission/operation.ts';
import type { Pod } from '../../api/core.ts';
import { alwaysPullImages, definition } from './index.ts';
import { admitCases, otherResourceCases, updatePodCases, validateCases } from './testdata/upstream-cases.ts';

const context = requestContext();

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
describe('TestAdmission: every init container, container and image volume pulls Always after CREATE', () => {
  it.each(admitCases)('$name', ({ pod }) => {
    const object = structuredClone(pod);
    const attributes = attributesRecord(object, { name: object.metadata!.name, namespace: object.metadata!.namespace });
    admitWithReinvocation(attributes);
    const admitted = attributes.object as Pod;
    for (const c of [...admitted.spec!.initContainers!, ...admitted.spec!.containers!]) {
      expect(c.imagePullPolicy, c.name).toBe('Always');
    }
    for (const v of admitted.spec!.volumes!) expect(v.image?.pullPolicy, v.name).toBe('Always');
  });
});

// TestValidate
describe('TestValidate: one forbidden error per offending field, aggregated in visiting order', () => {
  it.each(validateCases)('$name', ({ pod, expectedError }) => {
    const object = structuredClone(pod);
    const attributes = attributesRecord(object, { name: object.metadata!.name, namespace: object.metadata!.namespace });
    const error = rejectedWith(() => alwaysPullImages().validate!(attributes, context));
    expect(error.message).toBe(expectedError);
  });
});

// TestOtherResources
describe('TestOtherResources: a no-op for other resources and subresources, an error for non-pods', () => {
  it.each(otherResourceCases)('$name', ({ kind, resource, subresource, object, expectError }) => {
    const attributes = attributesRecord(structuredClone(object), {
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
  it.each(updatePodCases)('$name', ({ object, oldObject, subresource, expectIgnore }) => {
    const attributes = attributesRecord(structuredClone(object), {
      oldObject: structuredClone(oldObject),
      subresource,
      name: 'testname',
      namespace: 'testnamespace',
    });
    expect(() => admitWithReinvocation(attributes)).not.toThrow();
    if (expectIgnore) expect((attributes.object as Pod).spec!.containers![0]!.imagePullPolicy).toBe('IfNotPresent');
  });
});
