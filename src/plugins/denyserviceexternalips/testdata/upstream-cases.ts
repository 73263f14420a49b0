// Upstream plugin/pkg/admission/network/denyserviceexternalips/admission_test.go TestAdmission,
// every row, as data: the plugin's unit test and the offline review test both run them.

export function makeSvc(...externalIPs: string[]) {
  return { metadata: { namespace: 'test-ns', name: 'test-svc' }, spec: externalIPs.length > 0 ? { externalIPs } : {} };
}

export interface DenyServiceExternalIPsCase {
  name: string;
  newSvc: ReturnType<typeof makeSvc>;
  /** undefined: a CREATE. */
  oldSvc: ReturnType<typeof makeSvc> | undefined;
  fail: boolean;
}

export const admissionCases: DenyServiceExternalIPsCase[] = [
  { name: 'create: without externalIPs', newSvc: makeSvc(), oldSvc: undefined, fail: false },
  { name: 'create: with externalIPs', newSvc: makeSvc('1.1.1.1'), oldSvc: undefined, fail: true },
  { name: 'update: same externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2'), fail: false },
  { name: 'update: reorder externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('2.2.2.2', '1.1.1.1'), fail: false },
  { name: 'update: change externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '3.3.3.3'), fail: true },
  { name: 'update: add externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1'), fail: true },
  { name: 'update: erase externalIPs', newSvc: makeSvc(), oldSvc: makeSvc('1.1.1.1', '2.2.2.2'), fail: false },
  { name: 'update: reduce externalIPs from back', newSvc: makeSvc('1.1.1.1'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2'), fail: false },
  { name: 'update: reduce externalIPs from front', newSvc: makeSvc('2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2'), fail: false },
];
