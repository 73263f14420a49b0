// What the registration gauge and its log lines say, from the registrar's outcomes: series for the
// expected kinds only, at 0 from the start; 1 once a configuration holds what the chart asked for;
// one line at each change and none while nothing changes; a pass that cannot tell changes nothing.
import { describe, expect, it } from 'vitest';
import { capturedLog } from '../../test/support/log.ts';
import { createLogger } from '../observability/logger.ts';
import { ConfigurationKind } from '../ports/webhook-configuration-store.ts';
import { type RegistrationOutcome, RegistrationState } from './registrar.ts';
import { RegistrationStatus } from './status.ts';

function watched(expected: ConfigurationKind[]) {
  const log = capturedLog();
  const recorded: Array<[ConfigurationKind, boolean]> = [];
  const status = new RegistrationStatus({
    expected,
    name: 'ac',
    recorder: { registered: (kind, registered) => recorded.push([kind, registered]) },
    logger: createLogger('info', log.destination),
  });
  const lines = () =>
    log.lines().map(({ level, msg, kind, state, detail }) => ({ level, msg, kind, state, ...(detail === undefined ? {} : { detail }) }));
  return { status, recorded, lines };
}

const validating = (state: RegistrationOutcome['state'], detail?: string): RegistrationOutcome => ({
  kind: ConfigurationKind.Validating,
  state,
  ...(detail ? { detail } : {}),
});

describe('RegistrationStatus', () => {
  it('starts every expected configuration at 0, and none other', () => {
    const { recorded, lines } = watched([ConfigurationKind.Validating]);
    expect(recorded).toEqual([[ConfigurationKind.Validating, false]]);
    expect(lines()).toEqual([]);
  });

  it('follows registered, deleted and registered again, with one line at each change', () => {
    const { status, recorded, lines } = watched([ConfigurationKind.Mutating, ConfigurationKind.Validating]);
    recorded.length = 0;
    for (const outcome of [
      validating(RegistrationState.Waiting, 'probe failed: connect ECONNREFUSED'),
      validating(RegistrationState.Waiting, 'probe failed: timeout'),
      validating(RegistrationState.Written, 'validate.admission-chain.io:Fail'),
      validating(RegistrationState.UpToDate),
      validating(RegistrationState.Conflict),
      validating(RegistrationState.Absent),
      validating(RegistrationState.Absent),
      validating(RegistrationState.UpToDate),
    ]) {
      status.observe(outcome);
    }
    expect(recorded).toEqual([
      [ConfigurationKind.Validating, false],
      [ConfigurationKind.Validating, true],
      [ConfigurationKind.Validating, false],
      [ConfigurationKind.Validating, true],
    ]);
    const warn = 40;
    const info = 30;
    expect(lines()).toEqual([
      {
        level: warn,
        msg: 'webhook configuration not registered as the chart asked',
        kind: 'ValidatingWebhookConfiguration',
        state: 'waiting',
        detail: 'probe failed: connect ECONNREFUSED',
      },
      {
        level: info,
        msg: 'webhook configuration registered as the chart asked',
        kind: 'ValidatingWebhookConfiguration',
        state: 'written',
        detail: 'validate.admission-chain.io:Fail',
      },
      {
        level: warn,
        msg: 'webhook configuration not registered as the chart asked',
        kind: 'ValidatingWebhookConfiguration',
        state: 'absent',
      },
      {
        level: info,
        msg: 'webhook configuration registered as the chart asked',
        kind: 'ValidatingWebhookConfiguration',
        state: 'up-to-date',
      },
    ]);
  });

  it.each([
    ['a malformed template annotation', RegistrationState.Invalid, false],
    ['a conflicting write (the next pass tells)', RegistrationState.Conflict, undefined],
  ])('%s', (_label, state, expected) => {
    const { status, recorded } = watched([ConfigurationKind.Validating]);
    recorded.length = 0;
    status.observe(validating(RegistrationState.UpToDate));
    status.observe(validating(state));
    expect(recorded.at(-1)).toEqual([ConfigurationKind.Validating, expected ?? true]);
  });

  it('ignores a kind no enabled plugin uses (the chart installs no such configuration)', () => {
    const { status, recorded, lines } = watched([ConfigurationKind.Validating]);
    status.observe({ kind: ConfigurationKind.Mutating, state: RegistrationState.Absent });
    expect(recorded).toEqual([[ConfigurationKind.Validating, false]]);
    expect(lines()).toEqual([]);
  });
});
