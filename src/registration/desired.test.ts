// What the registrar writes, when it writes, and when a write must wait for a probe: table-driven
// over the template annotation, the live configuration and the CA bundle.
import { describe, expect, it } from 'vitest';
import type { LiveConfiguration, WebhookJson } from '../ports/webhook-configuration-store.ts';
import { addsCallsOrFailsClosed, desiredWebhooks, upToDate } from './desired.ts';
import { parseTemplate, registeredAnnotation, templateAnnotation } from './template.ts';

const webhook = (name: string, failurePolicy?: 'Fail' | 'Ignore', extra: Record<string, unknown> = {}): WebhookJson => ({
  name,
  clientConfig: { service: { name: 'ac', namespace: 'ns', path: '/validate', port: 443 } },
  ...(failurePolicy ? { failurePolicy } : {}),
  ...extra,
});
const live = (webhooks: WebhookJson[], annotations: Record<string, string> = {}): LiveConfiguration => ({
  resourceVersion: '7',
  annotations,
  webhooks,
});
// What kube-apiserver adds when it stores a webhook (admissionregistration/v1 defaulting).
const withServerDefaults = (w: WebhookJson): WebhookJson => ({
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  timeoutSeconds: 10,
  failurePolicy: 'Fail',
  ...w,
});

describe('parseTemplate', () => {
  it.each([
    ['no annotation', {}, undefined],
    ['an empty list', { [templateAnnotation]: '[]' }, []],
    ['one webhook', { [templateAnnotation]: JSON.stringify([webhook('v')]) }, [webhook('v')]],
  ])('%s', (_label, annotations, expected) => {
    expect(parseTemplate(annotations)).toEqual(expected);
  });

  it.each([
    ['not JSON', '[{', /is not JSON/],
    ['not a list', '{}', /must be a JSON array/],
    ['an item that is no object', '[1]', /item 0 is not an object/],
    ['a webhook without a name', JSON.stringify([{ clientConfig: {} }]), /item 0 has no name/],
    ['a name twice', JSON.stringify([webhook('v'), webhook('v')]), /webhook v appears twice/],
    ['no clientConfig', JSON.stringify([{ name: 'v' }]), /webhook v has no clientConfig/],
  ])('refuses %s', (_label, raw, message) => {
    expect(() => parseTemplate({ [templateAnnotation]: raw })).toThrow(message);
  });
});

describe('desiredWebhooks and upToDate', () => {
  const template = [webhook('validate', 'Fail')];
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('takes the template, injecting the bundle when one is managed here', () => {
    expect(desiredWebhooks(template, live([]), undefined).webhooks).toEqual(template);
    const injected = desiredWebhooks(template, live([]), pem).webhooks[0]!;
    expect((injected.clientConfig as { caBundle: string }).caBundle).toBe(Buffer.from(pem).toString('base64'));
    expect(template[0]!.clientConfig).not.toHaveProperty('caBundle');
  });

  it('without a template, injects the bundle into the live webhooks (webhooks rendered by the chart)', () => {
    const desired = desiredWebhooks(undefined, live([withServerDefaults(webhook('validate', 'Ignore'))]), pem);
    expect(desired.webhooks[0]).toMatchObject({
      name: 'validate',
      failurePolicy: 'Ignore',
      clientConfig: { caBundle: Buffer.from(pem).toString('base64') },
    });
  });

  it('what it wrote, with the server’s defaults added, is up to date; a template change, a hand edit or a missing webhook is not', () => {
    const desired = desiredWebhooks(template, live([]), pem);
    const written = live(desired.webhooks.map(withServerDefaults), { [registeredAnnotation]: desired.digest });
    expect(upToDate(desired, written)).toBe(true);
    const changed = desiredWebhooks([webhook('validate', 'Fail', { timeoutSeconds: 5 })], written, pem);
    expect(upToDate(changed, written)).toBe(false);
    const edited = live([{ ...written.webhooks[0]!, failurePolicy: 'Ignore' }], written.annotations);
    expect(upToDate(desired, edited)).toBe(false);
    expect(upToDate(desired, live([], written.annotations))).toBe(false);
    expect(upToDate(desired, live(written.webhooks, {}))).toBe(false);
  });
});

describe('addsCallsOrFailsClosed: writes that wait for a replica to answer', () => {
  it.each([
    ['registering a webhook the configuration lacks', [webhook('v', 'Ignore')], [], true],
    ['turning Ignore into Fail', [webhook('v', 'Fail')], [withServerDefaults(webhook('v', 'Ignore'))], true],
    ['turning Ignore into the default (Fail)', [webhook('v')], [withServerDefaults(webhook('v', 'Ignore'))], true],
    [
      'changing a registered Fail webhook',
      [webhook('v', 'Fail', { timeoutSeconds: 5 })],
      [withServerDefaults(webhook('v', 'Fail'))],
      false,
    ],
    ['turning Fail into Ignore', [webhook('v', 'Ignore')], [withServerDefaults(webhook('v', 'Fail'))], false],
    ['removing a webhook', [], [withServerDefaults(webhook('v', 'Fail'))], false],
  ])('%s: %s', (_label, template, current, expected) => {
    expect(
      addsCallsOrFailsClosed(
        desiredWebhooks(template as WebhookJson[], live(current as WebhookJson[]), undefined),
        live(current as WebhookJson[]),
      ),
    ).toBe(expected);
  });
});
