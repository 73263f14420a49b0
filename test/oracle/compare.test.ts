// What the oracle compares and what it ignores: generated fields and the webhook denial prefix are
// removed, everything else differs path by path.
import { describe, expect, it } from 'vitest';
import { compareOutcomes, outcomeOf } from './compare.ts';

const pod = (extra: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'n',
    uid: 'u-1',
    resourceVersion: '7',
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'x' }],
  },
  spec: { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Always' }], ...extra },
});

describe('outcomeOf and compareOutcomes', () => {
  it('ignores uid, timestamps, resourceVersion and managedFields', () => {
    const a = outcomeOf({ code: 201, body: pod({}) });
    const other = pod({});
    Object.assign(other.metadata, { uid: 'u-2', resourceVersion: '9', creationTimestamp: '2026-02-02T00:00:00Z', managedFields: [] });
    expect(compareOutcomes(a, outcomeOf({ code: 201, body: other }))).toEqual([]);
  });

  it('names each path where the objects differ', () => {
    const a = outcomeOf({ code: 201, body: pod({ nodeSelector: { pool: 'a' } }) });
    const b = outcomeOf({ code: 201, body: pod({ nodeSelector: { pool: 'b' }, tolerations: [] }) });
    expect(compareOutcomes(a, b)).toEqual([
      { path: 'object.spec.nodeSelector.pool', inTree: 'a', webhook: 'b' },
      { path: 'object.spec.tolerations', inTree: undefined, webhook: [] },
    ]);
  });

  it("removes kube-apiserver's webhook prefix from a denial, and keeps code and reason", () => {
    const message = 'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector';
    const inTree = outcomeOf({ code: 403, body: { kind: 'Status', reason: 'Forbidden', message } });
    const webhook = outcomeOf({
      code: 403,
      body: {
        kind: 'Status',
        reason: 'Forbidden',
        message: `admission webhook "mutate.admission-chain.io" denied the request: ${message}`,
      },
    });
    expect(compareOutcomes(inTree, webhook)).toEqual([]);
    const internal = outcomeOf({ code: 500, body: { kind: 'Status', message } });
    expect(compareOutcomes(inTree, internal)).toEqual([
      { path: 'code', inTree: 403, webhook: 500 },
      { path: 'reason', inTree: 'Forbidden', webhook: '' },
    ]);
  });

  it('names generated names alike, in the object and in a denial', () => {
    const generated = (name: string) => ({ ...pod({}), metadata: { ...pod({}).metadata, generateName: 'web-', name } });
    expect(
      compareOutcomes(outcomeOf({ code: 201, body: generated('web-abcde') }), outcomeOf({ code: 201, body: generated('web-fghij') })),
    ).toEqual([]);
    const denied = (name: string) =>
      outcomeOf({ code: 403, body: { reason: 'Forbidden', message: `pods "${name}" is forbidden: no` } }, 'web-');
    expect(compareOutcomes(denied('web-abcde'), denied('web-x1y2z'))).toEqual([]);
  });

  it('compares Services as allocated, not by the addresses and ports each server picked', () => {
    const service = (ip: string, nodePort: number) => ({
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'NodePort', clusterIP: ip, clusterIPs: [ip], ports: [{ port: 80, nodePort }] },
    });
    expect(
      compareOutcomes(
        outcomeOf({ code: 201, body: service('10.0.0.5', 30001) }),
        outcomeOf({ code: 201, body: service('10.0.0.9', 31999) }),
      ),
    ).toEqual([]);
    const headless = outcomeOf({ code: 201, body: service('None', 30001) });
    expect(compareOutcomes(outcomeOf({ code: 201, body: service('10.0.0.5', 30001) }), headless)).toHaveLength(2);
  });

  it("compares the ServiceAccount plugin's token volume by what it is, not by its random suffix", () => {
    const withToken = (suffix: string, path = '/var/run/secrets/kubernetes.io/serviceaccount') =>
      outcomeOf({
        code: 201,
        body: pod({
          containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: `kube-api-access-${suffix}`, mountPath: path }] }],
          volumes: [{ name: `kube-api-access-${suffix}`, projected: { sources: [] } }],
        }),
      });
    expect(compareOutcomes(withToken('abcde'), withToken('x1y2z'))).toEqual([]);
    expect(compareOutcomes(withToken('abcde'), withToken('x1y2z', '/elsewhere')).map((d) => d.path)).toEqual([
      'object.spec.containers[0].volumeMounts[0].mountPath',
    ]);
    expect(compareOutcomes(withToken('abcde'), withToken('abcdef')).length).toBeGreaterThan(0);
  });

  it("compares a bound pod's condition times as set or not, and the conditions themselves", () => {
    const bound = (time: string | null, status = 'True') => {
      const body = pod({ nodeName: 'n1' }) as Record<string, unknown>;
      body.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status, lastProbeTime: null, lastTransitionTime: time }] };
      return outcomeOf({ code: 201, body });
    };
    expect(compareOutcomes(bound('2026-01-01T00:00:00Z'), bound('2026-01-01T00:00:01Z'))).toEqual([]);
    expect(compareOutcomes(bound('2026-01-01T00:00:00Z'), bound(null)).map((d) => d.path)).toEqual([
      'object.status.conditions[0].lastTransitionTime',
    ]);
    expect(compareOutcomes(bound('2026-01-01T00:00:00Z'), bound('2026-01-01T00:00:00Z', 'False')).map((d) => d.path)).toEqual([
      'object.status.conditions[0].status',
    ]);
  });

  it('admitted against denied differs at the answer itself', () => {
    const paths = compareOutcomes(
      outcomeOf({ code: 201, body: pod({}) }),
      outcomeOf({ code: 403, body: { reason: 'Forbidden', message: 'no' } }),
    ).map((d) => d.path);
    expect(paths).toEqual(['admitted', 'code', 'object', 'reason', 'message']);
  });
});
