// Upstream plugin/pkg/admission/network/denyserviceexternalips/admission_test.go TestAdmission,
// every row; then the message, the requests upstream leaves alone, and bodies that are not Services.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { syncRejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import { definition, pluginName } from './index.ts';
import { admissionCases, makeSvc } from './testdata/upstream-cases.ts';

const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom });
const context = requestContext();

/** Upstream's attributes record here: a Service "test-svc" in "test-ns" (version "version"), an UPDATE when there is an old one. */
const attributesFor = (object: unknown, oldObject: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, {
    operation: oldObject === undefined ? Operation.Create : Operation.Update,
    kind: { group: '', version: 'version', kind: 'Service' },
    resource: { group: '', version: 'version', resource: 'services' },
    namespace: 'test-ns',
    name: 'test-svc',
    oldObject: oldObject as Attributes['oldObject'],
    ...overrides,
  });

const rejection = (attributes: Attributes) => syncRejectionOf(() => plugin.validate!(attributes, context));

describe('TestAdmission', () => {
  it.each(admissionCases)('$name', ({ newSvc, oldSvc, fail }) => {
    expect(rejection(attributesFor(newSvc, oldSvc)) !== undefined).toBe(fail);
  });
});

describe('the plugin', () => {
  it('validates CREATE and UPDATE only, and never mutates', () => {
    expect(allOperations.filter((op) => plugin.handles(op))).toEqual([Operation.Create, Operation.Update]);
    expect(plugin.admit).toBeUndefined();
    expect(plugin.name).toBe(pluginName);
  });

  it("denies with admission.NewForbidden's wording, as a 403", () => {
    expect(rejection(attributesFor(makeSvc('1.1.1.1'), undefined))!.status).toEqual({
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'services "test-svc" is forbidden: Use of external IPs is denied by admission control',
      details: { name: 'test-svc', group: '', kind: 'services' },
    });
  });

  it.each([
    { name: 'services/status', overrides: { subresource: 'status' } },
    { name: 'another resource', overrides: { resource: { group: '', version: 'v1', resource: 'pods' } } },
    { name: 'services in another group', overrides: { resource: { group: 'example.com', version: 'v1', resource: 'services' } } },
  ])('leaves $name alone', ({ overrides }) => {
    expect(rejection(attributesFor(makeSvc('1.1.1.1'), undefined, overrides))).toBeUndefined();
  });

  it.each([
    { name: 'a Pod body', object: { kind: 'Pod' }, old: undefined },
    { name: 'externalIPs that are not a list', object: { spec: { externalIPs: '1.1.1.1' } }, old: undefined },
    { name: 'an old object that is not a Service', object: makeSvc(), old: [] },
  ])("answers $name with upstream's internal error", ({ object, old }) => {
    expect(rejection(attributesFor(object, old))!.status).toEqual({
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: Expected Service resource, got: /version, Kind=Service',
      details: { causes: [{ message: 'Expected Service resource, got: /version, Kind=Service' }] },
    });
  });

  it('compares with a set: 50,000 IPs against 50,000 old ones', () => {
    const ips = Array.from({ length: 50_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(rejection(attributesFor(makeSvc(...ips), makeSvc(...[...ips].reverse())))).toBeUndefined();
    expect(rejection(attributesFor(makeSvc(...ips, '192.0.2.1'), makeSvc(...ips)))).toBeDefined();
  });
});
