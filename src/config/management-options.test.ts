// The management flags of `serve`, through commander as the CLI parses them: defaults, and every
// combination that cannot work refused with the flag named.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addManagementOptions, parseManagementOptions, type RawManagementOptions } from './management-options.ts';

function parse(args: string[]) {
  const command = addManagementOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  command.parse(args, { from: 'user' });
  return parseManagementOptions(command.opts<RawManagementOptions>());
}

describe('management flags', () => {
  it('manage nothing by default', () => {
    expect(parse([])).toEqual({
      webhookConfiguration: undefined,
      webhookCaBundleFile: undefined,
      selfManagedTls: undefined,
      reconcileIntervalMs: 30_000,
    });
  });

  it('self-managed TLS: the Secret, the names (the first is the common name) and the lifetimes', () => {
    const config = parse([
      '--self-managed-tls-secret=ns/tls',
      '--self-managed-tls-name=a.ns.svc',
      '--self-managed-tls-name=10.0.0.1',
      '--self-managed-tls-duration=24h',
      '--self-managed-tls-renew-before=8h',
      '--self-managed-tls-ca-duration=2400h',
    ]);
    expect(config.selfManagedTls).toEqual({
      secret: { namespace: 'ns', name: 'tls' },
      policy: {
        commonName: 'a.ns.svc',
        names: ['a.ns.svc', '10.0.0.1'],
        durationMs: 86_400_000,
        renewBeforeMs: 28_800_000,
        caDurationMs: 8_640_000_000,
      },
    });
  });

  it.each([
    [['--self-managed-tls-secret=tls', '--self-managed-tls-name=a'], '--self-managed-tls-secret "tls": expected namespace/name'],
    [['--self-managed-tls-secret=ns/tls'], '--self-managed-tls-*: at least one DNS name is needed'],
    [['--self-managed-tls-name=a'], '--self-managed-tls-name needs --self-managed-tls-secret'],
    [
      ['--self-managed-tls-secret=ns/tls', '--self-managed-tls-name=a', '--webhook-ca-bundle-file=/ca.crt'],
      '--webhook-ca-bundle-file and --self-managed-tls-secret exclude each other',
    ],
    [
      ['--self-managed-tls-secret=ns/tls', '--self-managed-tls-name=a', '--self-managed-tls-renew-before=2160h'],
      'the renewal window must be positive and shorter than the certificate lifetime',
    ],
    [
      ['--self-managed-tls-secret=ns/tls', '--self-managed-tls-name=a', '--self-managed-tls-ca-duration=4000h'],
      'the CA lifetime must exceed three serving certificate lifetimes',
    ],
    [
      ['--self-managed-tls-secret=ns/tls', '--self-managed-tls-name=a', '--self-managed-tls-duration=soon'],
      '--self-managed-tls-duration: invalid duration "soon"',
    ],
    [['--reconcile-interval=10ms'], '--reconcile-interval "10ms": must be at least 100ms'],
  ])('refuses %j', (args, message) => {
    expect(() => parse(args)).toThrow(message);
  });
});
