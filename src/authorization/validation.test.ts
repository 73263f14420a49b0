// SubjectAccessReview validation: the checks and the exact field-error text kube-apiserver
// returns (pkg/apis/authorization/validation, current upstream), and the 422 around them.
import { describe, expect, it } from 'vitest';
import { fieldErrorString } from './field-errors.ts';
import { validateFieldSelectorAttributes, validateLabelSelectorAttributes } from './selector-validation.ts';
import type { SubjectAccessReview, SubjectAccessReviewSpec } from './subject-access-review.ts';
import { subjectAccessReviewInvalid, validateSubjectAccessReview, validateSubjectAccessReviewSpec } from './validation.ts';

const messages = (spec: SubjectAccessReviewSpec) => validateSubjectAccessReviewSpec(spec).map(fieldErrorString);

describe('validateSubjectAccessReviewSpec', () => {
  it.each<[string, SubjectAccessReviewSpec, string[]]>([
    ['valid resource request', { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } }, []],
    ['valid non-resource request, groups only', { groups: ['g'], nonResourceAttributes: { verb: 'get', path: '/healthz' } }, []],
    [
      'neither attributes nor a subject',
      {},
      [
        'spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
        'spec.user: Invalid value: "": at least one of user or group must be specified',
      ],
    ],
    [
      'both attributes',
      { user: 'a', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/api' } },
      [
        'spec: Invalid value: v1.NonResourceAttributes{Path:"/api", Verb:"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ],
    ],
    [
      'empty groups count as none',
      { user: '', groups: [], resourceAttributes: { verb: 'get' } },
      ['spec.user: Invalid value: "": at least one of user or group must be specified'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(messages(spec)).toEqual(expected);
  });
});

describe('selector validation', () => {
  const field = (selector: Parameters<typeof validateFieldSelectorAttributes>[0], options = {}) =>
    validateFieldSelectorAttributes(selector, 'spec.resourceAttributes.fieldSelector', options).map(fieldErrorString);
  const label = (selector: Parameters<typeof validateLabelSelectorAttributes>[0], options = {}) =>
    validateLabelSelectorAttributes(selector, 'spec.resourceAttributes.labelSelector', options).map(fieldErrorString);

  it.each<[string, Parameters<typeof field>[0], string[]]>([
    ['absent', undefined, []],
    ['raw only', { rawSelector: 'spec.nodeName=n1' }, []],
    ['requirements only', { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }, []],
    [
      'raw and requirements together',
      { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] },
      ['spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements'],
    ],
    [
      'neither',
      {},
      [
        'spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
      ],
    ],
    [
      'In / NotIn without values',
      {
        requirements: [
          { key: 'a', operator: 'In' },
          { key: 'b', operator: 'NotIn', values: [] },
        ],
      },
      [
        "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.resourceAttributes.fieldSelector.requirements[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'Exists / DoesNotExist with values',
      {
        requirements: [
          { key: 'a', operator: 'Exists', values: ['x'] },
          { key: 'b', operator: 'DoesNotExist', values: ['y'] },
        ],
      },
      [
        "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        "spec.resourceAttributes.fieldSelector.requirements[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    ],
    [
      'Exists / DoesNotExist without values',
      {
        requirements: [
          { key: 'a', operator: 'Exists' },
          { key: 'b', operator: 'DoesNotExist' },
        ],
      },
      [],
    ],
    [
      'missing key',
      { requirements: [{ key: '', operator: 'Exists' }] },
      ['spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified'],
    ],
    [
      'unknown operator: accepted, as upstream SAR validation allows newer clients',
      { requirements: [{ key: 'a', operator: 'Near', values: ['x'] }] },
      [],
    ],
  ])('field selector: %s', (_name, selector, expected) => {
    expect(field(selector)).toEqual(expected);
  });

  it('unknown operators are rejected when AllowUnknownOperatorInRequirement is off (metav1 default)', () => {
    expect(field({ requirements: [{ key: 'a', operator: 'Near' }] }, { allowUnknownOperatorInRequirement: false })).toEqual([
      'spec.resourceAttributes.fieldSelector.requirements[0].operator: Invalid value: "Near": not a valid selector operator',
    ]);
    expect(label({ requirements: [{ key: 'a', operator: 'Near' }] }, { allowUnknownOperatorInRequirement: false })).toEqual([
      'spec.resourceAttributes.labelSelector.requirements[0].operator: Invalid value: "Near": not a valid selector operator',
    ]);
  });

  it.each<[string, Parameters<typeof label>[0], string[]]>([
    ['valid', { requirements: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['web', 'api'] }] }, []],
    [
      'raw and requirements together',
      { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'Exists' }] },
      ['spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements'],
    ],
    [
      'In without values',
      { requirements: [{ key: 'a', operator: 'In' }] },
      [
        "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'an invalid key',
      { requirements: [{ key: 'bad key', operator: 'Exists' }] },
      [
        "spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      'an invalid value',
      { requirements: [{ key: 'a', operator: 'In', values: ['ok', '-bad'] }] },
      [
        "spec.resourceAttributes.labelSelector.requirements[0].values[1]: Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    [
      'a key with an empty prefix',
      { requirements: [{ key: '/name', operator: 'Exists' }] },
      ['spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "/name": prefix part must be non-empty'],
    ],
  ])('label selector: %s', (_name, selector, expected) => {
    expect(label(selector)).toEqual(expected);
  });
});

describe('validateSubjectAccessReview and the 422', () => {
  const valid: SubjectAccessReview = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'a', resourceAttributes: { verb: 'get' } },
  };

  it('metadata must be empty (creationTimestamp: null and empty maps are empty)', () => {
    expect(validateSubjectAccessReview({ ...valid, metadata: { creationTimestamp: null, labels: {} } })).toEqual([]);
    expect(validateSubjectAccessReview({ ...valid, metadata: { name: 'x' } }).map(fieldErrorString)).toEqual([
      'metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty',
    ]);
  });

  it('a status may not be both allowed and denied', () => {
    expect(validateSubjectAccessReview({ ...valid, status: { allowed: true, denied: true } }).map(fieldErrorString)).toEqual([
      'status: Invalid value: true: allowed and denied are mutually exclusive',
    ]);
  });

  it('builds the 422 Invalid status, one error unbracketed, several bracketed', () => {
    const one = subjectAccessReviewInvalid(validateSubjectAccessReviewSpec({ user: 'a' }));
    expect(one.status).toEqual({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message:
        '.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      details: {
        name: '',
        group: 'authorization.k8s.io',
        kind: '',
        causes: [
          {
            type: 'FieldValueInvalid',
            message: 'Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
            field: 'spec',
          },
        ],
      },
    });
    expect(subjectAccessReviewInvalid(validateSubjectAccessReviewSpec({})).message).toBe(
      '.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
  });
});
