// The stand-in's webhook admission, webhook semantics one at a time, against real HTTPS webhooks:
// ordering, selectors, rules with subresources and scope, matchPolicy, matchConditions, dry run and
// sideEffects, timeouts and failurePolicy, reinvocation, and how denials and warnings come back.
// (The kubectl scenarios in dry-run.test.ts cover the chart's configurations end to end.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.ts';
import type { AdmissionAttributes } from './admission-attributes.ts';
import { admit, type DispatcherEnvironment } from './admission-dispatcher.ts';
import { startTestWebhook, type TestWebhook } from './test-webhook.ts';
import type { Webhook, WebhookConfiguration } from './webhook-configurations.ts';
import type { RuleWithOperations } from '../deploy/webhook-match.ts';
import { admissionWarningHeader } from './warning-header.ts';

let server: TestWebhook;
const calledPaths = () => server.urls.map((u) => u.split('?')[0]);

beforeAll(async () => {
  // Behaviour by path: /allow, /deny/<code>, /deny-bare, /deny-reason, /warn/<text>, /label/<value>
  // (sets metadata.labels.step, so every call changes the object), /noop-patch, /slow.
  server = await startTestWebhook(async (request, path) => {
    const [, action, argument] = path.split('/');
    switch (action) {
      case 'deny':
        return { allowed: false, status: { status: 'Failure', code: Number(argument), reason: 'Forbidden', message: `no (${argument})` } };
      case 'deny-bare':
        return { allowed: false };
      case 'deny-reason':
        return { allowed: false, status: { status: 'Failure', code: 0, reason: 'NotAcceptable', message: '' } };
      case 'warn':
        return { allowed: true, warnings: [decodeURIComponent(argument ?? ''), decodeURIComponent(argument ?? '')] };
      case 'label':
        return { allowed: true, patchOperations: [{ op: 'add', path: '/metadata/labels', value: { step: argument } }] };
      case 'noop-patch':
        return { allowed: true, patchOperations: [{ op: 'replace', path: '/metadata/name', value: (request.object as KubeObject).metadata?.name }] };
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return { allowed: true };
      default:
        return { allowed: true };
    }
  });
});
afterAll(() => server?.close());

function hook(name: string, path: string, overrides: Partial<Webhook> = {}): Webhook {
  return {
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: server.clientConfig(path),
    rules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['CREATE', 'UPDATE'] }],
    sideEffects: 'None',
    ...overrides,
  };
}

function configuration(kind: WebhookConfiguration['kind'], name: string, webhooks: Webhook[]): WebhookConfiguration {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks };
}

function environment(configurations: WebhookConfiguration[], namespaces: Record<string, Record<string, string>> = { demo: { team: 'a' } }): DispatcherEnvironment {
  return {
    configurations: (phase) => configurations.filter((c) => (phase === 'mutating') === (c.kind === 'MutatingWebhookConfiguration')),
    namespaceLabels: (name) => namespaces[name],
    equivalents: (resource) =>
      resource.group === 'example.com' && resource.resource === 'widgets'
        ? ['v1', 'v1beta1'].filter((v) => v !== resource.version).map((version) => ({ resource: { ...resource, version }, kind: { group: 'example.com', version, kind: 'Widget' } }))
        : [],
    resolveService: () => undefined,
  };
}

function podAttributes(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'demo',
    name: 'web',
    operation: 'CREATE',
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] },
    dryRun: true,
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'demo', labels: { app: 'web' } }, spec: { containers: [] } },
    oldObject: undefined,
    ...overrides,
  };
}

const mutating = (name: string, webhooks: Webhook[]) => configuration('MutatingWebhookConfiguration', name, webhooks);
const validating = (name: string, webhooks: Webhook[]) => configuration('ValidatingWebhookConfiguration', name, webhooks);

async function run(configurations: WebhookConfiguration[], attributes = podAttributes(), namespaces?: Record<string, Record<string, string>>) {
  server.requests.length = 0;
  server.urls.length = 0;
  return admit(attributes, environment(configurations, namespaces));
}

describe('order', () => {
  it('mutating configurations run sorted by name, webhooks in listed order, each seeing the last patch; validation sees the result', async () => {
    const outcome = await run([
      validating('v', [hook('check', '/allow')]),
      mutating('b-second', [hook('b1', '/label/b1'), hook('b2', '/label/b2')]),
      mutating('a-first', [hook('a1', '/label/a1')]),
    ]);
    expect(calledPaths()).toEqual(['/label/a1', '/label/b1', '/label/b2', '/allow']);
    expect(server.requests[1]?.object?.metadata?.labels).toEqual({ step: 'a1' });
    expect(server.requests[3]?.object?.metadata?.labels).toEqual({ step: 'b2' });
    expect(outcome).toMatchObject({ allowed: true, object: { metadata: { labels: { step: 'b2' } } } });
  });

  it('a mutating denial stops everything after it, validation included', async () => {
    const outcome = await run([mutating('m', [hook('first', '/deny/403'), hook('second', '/allow')]), validating('v', [hook('check', '/allow')])]);
    expect(calledPaths()).toEqual(['/deny/403']);
    expect(outcome).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'admission webhook "first" denied the request: no (403)' } });
  });

  it('validating webhooks are all called; the first denial in hook order is the answer', async () => {
    const outcome = await run([validating('v', [hook('ok', '/allow'), hook('late', '/deny/422'), hook('later', '/deny/409')])]);
    expect(new Set(calledPaths())).toEqual(new Set(['/allow', '/deny/422', '/deny/409']));
    expect(outcome).toMatchObject({ allowed: false, status: { code: 422, message: 'admission webhook "late" denied the request: no (422)' } });
  });
});

describe('denials and warnings (webhookerrors.ToStatusErr, kube-apiserver 1.34)', () => {
  it.each([
    ['/deny/200', { code: 400, reason: 'Forbidden', message: 'admission webhook "w" denied the request: no (200)' }],
    ['/deny/403', { code: 403, reason: 'Forbidden', message: 'admission webhook "w" denied the request: no (403)' }],
    ['/deny-reason', { code: 400, reason: 'NotAcceptable', message: 'admission webhook "w" denied the request: NotAcceptable' }],
    ['/deny-bare', { code: 400, message: 'admission webhook "w" denied the request without explanation' }],
  ])('%s → %j', async (path, status) => {
    const outcome = await run([validating('v', [hook('w', path)])]);
    expect(outcome).toMatchObject({ allowed: false, status: { kind: 'Status', status: 'Failure', ...status } });
  });

  it('collects warnings from both phases, and the header sends each once, quoted', async () => {
    const outcome = await run([mutating('m', [hook('m', `/warn/${encodeURIComponent('mind "this"')}`)]), validating('v', [hook('v', '/warn/and%20that')])]);
    expect(outcome).toMatchObject({ allowed: true, warnings: ['mind "this"', 'mind "this"', 'and that', 'and that'] });
    expect(admissionWarningHeader(outcome.warnings)).toBe('299 - "mind \\"this\\"", 299 - "and that"');
  });
});

describe('which webhooks are called', () => {
  it.each<[string, Partial<RuleWithOperations>, AdmissionAttributes, boolean]>([
    ['rule for pods', { resources: ['pods'] }, podAttributes(), true],
    ['rule for pods does not match pods/status', { resources: ['pods'] }, podAttributes({ subresource: 'status', operation: 'UPDATE' }), false],
    ['rule for pods/* matches pods/status', { resources: ['pods/*'] }, podAttributes({ subresource: 'status', operation: 'UPDATE' }), true],
    ['rule for CREATE only, UPDATE request', { resources: ['pods'], operations: ['CREATE'] }, podAttributes({ operation: 'UPDATE' }), false],
    ['Cluster scope, namespaced request', { resources: ['*'], scope: 'Cluster' }, podAttributes(), false],
    ['Namespaced scope, namespaced request', { resources: ['*'], scope: 'Namespaced' }, podAttributes(), true],
    ['apps group, core request', { apiGroups: ['apps'], resources: ['*'] }, podAttributes(), false],
  ])('%s → called: %s', async (_name, rule, attributes, called) => {
    const base: RuleWithOperations = { apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['CREATE', 'UPDATE'] };
    await run([validating('v', [hook('w', '/allow', { rules: [{ ...base, ...rule }] })])], attributes);
    expect(server.requests.length).toBe(called ? 1 : 0);
  });

  it.each([
    ['matchLabels on the namespace', { matchLabels: { team: 'a' } }, true],
    ['matchLabels not on the namespace', { matchLabels: { team: 'b' } }, false],
    ['NotIn for an absent label', { matchExpressions: [{ key: 'admission-chain.io/disabled', operator: 'NotIn' as const, values: ['true'] }] }, true],
    ['DoesNotExist for a present label', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' as const }] }, false],
  ])('namespaceSelector: %s → called: %s', async (_name, namespaceSelector, called) => {
    await run([validating('v', [hook('w', '/allow', { namespaceSelector })])]);
    expect(server.requests.length).toBe(called ? 1 : 0);
  });

  it('namespaceSelector does not apply to cluster-scoped objects, and a missing namespace is NotFound', async () => {
    const selector = { namespaceSelector: { matchLabels: { team: 'nobody' } } };
    const pv = podAttributes({ kind: { group: '', version: 'v1', kind: 'PersistentVolume' }, resource: { group: '', version: 'v1', resource: 'persistentvolumes' }, namespace: '' });
    await run([validating('v', [hook('w', '/allow', selector)])], pv);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.namespace).toBeUndefined();

    const outcome = await run([validating('v', [hook('w', '/allow', selector)])], podAttributes({ namespace: 'gone' }));
    expect(outcome).toMatchObject({ allowed: false, status: { code: 404, reason: 'NotFound', message: 'namespaces "gone" not found' } });
  });

  it('objectSelector matches the new or the old object', async () => {
    const objectSelector = { matchLabels: { tier: 'gold' } };
    const update = podAttributes({ operation: 'UPDATE', oldObject: { metadata: { name: 'web', labels: { tier: 'gold' } } } });
    await run([validating('v', [hook('w', '/allow', { objectSelector })])], update);
    expect(server.requests).toHaveLength(1);
    await run([validating('v', [hook('w', '/allow', { objectSelector })])]);
    expect(server.requests).toHaveLength(0);
  });

  it('matchPolicy Equivalent sends a v1beta1 request to a v1-only webhook as v1, keeping requestKind; Exact does not', async () => {
    const rules = [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'], operations: ['CREATE' as const] }];
    const widget = podAttributes({
      kind: { group: 'example.com', version: 'v1beta1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1beta1', resource: 'widgets' },
      object: { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'gear' } },
    });
    await run([validating('v', [hook('w', '/allow', { rules, matchPolicy: 'Exact' })])], widget);
    expect(server.requests).toHaveLength(0);
    await run([validating('v', [hook('w', '/allow', { rules })])], widget);
    expect(server.requests[0]).toMatchObject({
      kind: { version: 'v1', kind: 'Widget' },
      resource: { version: 'v1', resource: 'widgets' },
      requestKind: { version: 'v1beta1', kind: 'Widget' },
      requestResource: { version: 'v1beta1', resource: 'widgets' },
      object: { apiVersion: 'example.com/v1' },
    });
  });

  it('matchConditions (the chart’s CEL subset) keep a request away', async () => {
    const matchConditions = [{ name: 'not-pods', expression: "!(request.resource.group == '' && request.resource.resource in ['pods'])" }];
    await run([validating('v', [hook('w', '/allow', { matchConditions })])]);
    expect(server.requests).toHaveLength(0);
  });
});

describe('dry run, timeouts and failurePolicy', () => {
  it('a dry-run request is refused for a webhook with side effects, and sent when sideEffects is None', async () => {
    const refused = await run([validating('v', [hook('w', '/allow', { sideEffects: 'Some' })])]);
    expect(refused).toMatchObject({ allowed: false, status: { code: 400, reason: 'BadRequest', message: 'admission webhook "w" does not support dry run' } });
    expect(server.requests).toHaveLength(0);
    await run([validating('v', [hook('w', '/allow')])]);
    expect(server.requests[0]).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    expect(server.urls[0]).toBe('/allow?timeout=10s');
  });

  it('a webhook slower than timeoutSeconds fails the request under Fail and is skipped under Ignore', async () => {
    const slow = (failurePolicy: 'Fail' | 'Ignore') => validating('v', [hook('slow', '/slow', { timeoutSeconds: 1, failurePolicy })]);
    const [failed, ignored] = await Promise.all([admit(podAttributes(), environment([slow('Fail')])), admit(podAttributes(), environment([slow('Ignore')]))]);
    expect(failed).toMatchObject({
      allowed: false,
      status: { code: 500, reason: 'InternalError', message: `Internal error occurred: failed calling webhook "slow": failed to call webhook: Post "${server.clientConfig('/slow').url}?timeout=1s": context deadline exceeded` },
    });
    expect(ignored).toMatchObject({ allowed: true });
  });

  it('an unreachable webhook is a call failure, which Ignore skips and Fail reports', async () => {
    const other = await startTestWebhook(() => ({ allowed: true }));
    await other.close();
    const unreachable = (failurePolicy: 'Fail' | 'Ignore') => mutating('m', [{ ...hook('gone', '/'), clientConfig: other.clientConfig('/'), failurePolicy }]);
    expect(await run([unreachable('Ignore')])).toMatchObject({ allowed: true });
    expect(await run([unreachable('Fail')])).toMatchObject({ allowed: false, status: { code: 500, message: expect.stringContaining('failed calling webhook "gone": failed to call webhook: Post') } });
  });
});

describe('reinvocationPolicy', () => {
  it('IfNeeded: a webhook is called once more when a later one changed the object; Never: it is not', async () => {
    await run([mutating('m', [hook('first', '/label/first', { reinvocationPolicy: 'IfNeeded' }), hook('second', '/label/second')])]);
    expect(calledPaths()).toEqual(['/label/first', '/label/second', '/label/first']);
    await run([mutating('m', [hook('first', '/label/first', { reinvocationPolicy: 'Never' }), hook('second', '/label/second')])]);
    expect(calledPaths()).toEqual(['/label/first', '/label/second']);
  });

  it('a later patch that changes nothing does not trigger a reinvocation', async () => {
    await run([mutating('m', [hook('first', '/label/first', { reinvocationPolicy: 'IfNeeded' }), hook('second', '/noop-patch')])]);
    expect(calledPaths()).toEqual(['/label/first', '/noop-patch']);
  });
});
