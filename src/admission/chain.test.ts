import { describe, expect, it } from 'vitest';
import { deadlineOf, podAttributes } from '../../test/support/attributes.ts';
import { recordingPlugin } from '../../test/support/recording-plugin.ts';
import { AdmissionChain } from './chain.ts';
import { forbidden } from './errors.ts';
import type { AdmissionPlugin, PluginMode } from './plugin.ts';

const never = deadlineOf();

function labels(attributes: { object: unknown }): Record<string, string> {
  return (attributes.object as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
}

describe('AdmissionChain', () => {
  it("runs mutating plugins in array order, each seeing the previous one's changes", async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          mutate: (a) => {
            a.object!.metadata!.labels = { a: '1' };
          },
        }),
      },
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'B',
          log,
          mutate: (a) => {
            seen.push(JSON.stringify(a.object!.metadata!.labels));
            a.object!.metadata!.labels!.b = '2';
          },
        }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'C', log }) },
    ]);
    const attributes = podAttributes();
    const outcome = await chain.admit(attributes, never);
    expect(outcome.rejection).toBeUndefined();
    expect(log).toEqual(['A:admit', 'B:admit', 'C:admit']);
    expect(seen).toEqual(['{"a":"1"}']);
    expect(labels(attributes)).toEqual({ a: '1', b: '2' });
  });

  it('never interleaves phases: admit runs only admit, validate only validate', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'A', log }) },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log, mutating: false }) },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'C', log, validating: false }) },
    ]);
    await chain.admit(podAttributes(), never);
    expect(log).toEqual(['A:admit', 'C:admit']);
    log.length = 0;
    await chain.validate(podAttributes(), never);
    expect(log).toEqual(['A:validate', 'B:validate']);
    expect(chain.mutatingPlugins).toEqual(['A', 'C']);
    expect(chain.validatingPlugins).toEqual(['A', 'B']);
  });

  it('runs plugins that answer at once and plugins that return a promise in order, stopping at the first rejection', async () => {
    const log: string[] = [];
    const sync = (name: string, reject = false): AdmissionPlugin => ({
      name,
      handles: () => true,
      validate: (attributes) => {
        log.push(name);
        if (reject) throw forbidden(attributes, `${name} says no`);
      },
    });
    const pending = (name: string): AdmissionPlugin => ({
      name,
      handles: () => true,
      validate: async () => {
        await Promise.resolve();
        log.push(name);
      },
    });
    const allSync = new AdmissionChain([
      { mode: 'enforce', plugin: sync('A') },
      { mode: 'enforce', plugin: sync('B', true) },
      { mode: 'enforce', plugin: sync('C') },
    ]);
    expect((await allSync.validate(podAttributes(), never)).rejectedBy).toBe('B');
    expect(log).toEqual(['A', 'B']);

    log.length = 0;
    const mixed = new AdmissionChain([
      { mode: 'enforce', plugin: sync('A') },
      { mode: 'enforce', plugin: pending('P') },
      { mode: 'enforce', plugin: sync('B', true) },
    ]);
    expect((await mixed.validate(podAttributes(), never)).rejection?.message).toBe('pods "web" is forbidden: B says no');
    expect(log).toEqual(['A', 'P', 'B']);
  });

  it('stops validating at the first enforced rejection', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'A', log }) },
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'B',
          log,
          check: (a) => {
            throw forbidden(a, 'no');
          },
        }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'C', log }) },
    ]);
    const outcome = await chain.validate(podAttributes(), never);
    expect(log).toEqual(['A:validate', 'B:validate']);
    expect(outcome.rejectedBy).toBe('B');
    expect(outcome.rejection?.status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "web" is forbidden: no' });
  });

  it('stops mutating at the first enforced rejection', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          mutate: (a) => {
            throw forbidden(a, 'stop');
          },
        }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log }) },
    ]);
    const outcome = await chain.admit(podAttributes(), never);
    expect(log).toEqual(['A:admit']);
    expect(outcome.rejectedBy).toBe('A');
  });

  it('skips plugins that do not handle the operation', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'A', log, operations: ['CREATE'] }) },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log, operations: ['UPDATE'] }) },
    ]);
    await chain.validate(podAttributes({ operation: 'UPDATE' }), never);
    expect(log).toEqual(['B:validate']);
  });

  it.each<[PluginMode, boolean]>([
    ['warn', true],
    ['audit', false],
  ])('in %s mode a rejection admits, annotates, and the chain goes on', async (mode, warns) => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode,
        plugin: recordingPlugin({
          name: 'A',
          log,
          check: (a) => {
            throw forbidden(a, 'would deny');
          },
        }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log }) },
    ]);
    const outcome = await chain.validate(podAttributes(), never);
    expect(outcome.rejection).toBeUndefined();
    expect(log).toEqual(['A:validate', 'B:validate']);
    expect(outcome.annotations).toEqual({ [`A.${mode}-rejection`]: 'pods "web" is forbidden: would deny' });
    expect(outcome.warnings).toEqual(warns ? ['[A] pods "web" is forbidden: would deny'] : []);
    expect(outcome.nonEnforced).toEqual([{ plugin: 'A', mode }]);
  });

  it('a rejecting mutating plugin in warn mode leaves no half-made change behind', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'warn',
        plugin: recordingPlugin({
          name: 'A',
          log,
          mutate: (a) => {
            a.object!.metadata!.labels = { half: 'made' };
            throw forbidden(a, 'no');
          },
        }),
      },
    ]);
    const attributes = podAttributes();
    await chain.admit(attributes, never);
    expect(attributes.object!.metadata!.labels).toBeUndefined();
  });

  it('turns an unexpected throw into a readable 500 naming the plugin', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          check: () => {
            throw new TypeError('x is undefined');
          },
        }),
      },
    ]);
    const outcome = await chain.validate(podAttributes(), never);
    expect(outcome.rejection?.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: plugin A failed: x is undefined',
    });
  });

  it("records audit annotations under the plugin's name", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          check: (_a, c) => {
            c.annotate('path', 'fast');
            c.warn('heads up');
          },
        }),
      },
    ]);
    const outcome = await chain.validate(podAttributes(), never);
    expect(outcome.annotations).toEqual({ 'A.path': 'fast' });
    expect(outcome.warnings).toEqual(['heads up']);
  });

  it('does not start a plugin once the deadline has passed', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({ name: 'A', log, check: () => controller.abort(new DOMException('deadline', 'TimeoutError')) }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log }) },
    ]);
    const outcome = await chain.validate(podAttributes(), deadlineOf(controller.signal));
    expect(log).toEqual(['A:validate']);
    expect(outcome.rejection?.status.code).toBe(500);
    expect(outcome.rejection?.message).toContain('deadline exceeded');
  });

  it("sees a deadline that passed during synchronous work, before the signal's timer could fire", async () => {
    const log: string[] = [];
    const expiresAt = performance.now() + 20;
    const chain = new AdmissionChain([
      // A plugin that works synchronously past the deadline: no timer fires while it runs.
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          check: () => {
            while (performance.now() < expiresAt + 5);
          },
        }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log }) },
    ]);
    // A signal that never fires: only the time check can stop the chain.
    const outcome = await chain.validate(podAttributes(), deadlineOf(undefined, expiresAt));
    expect(log).toEqual(['A:validate']);
    expect(outcome.rejectedBy).toBe('B');
    expect(outcome.rejection?.message).toBe('Internal error occurred: admission request deadline exceeded before plugin B could run');
  });

  it('says canceled, not deadline, when the caller went away before a plugin could run', async () => {
    const controller = new AbortController();
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({ name: 'A', log: [], check: () => controller.abort(new Error('client closed the connection')) }),
      },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log: [] }) },
    ]);
    const outcome = await chain.validate(podAttributes(), deadlineOf(controller.signal));
    expect(outcome.rejection?.message).toBe(
      'Internal error occurred: admission request canceled before plugin B could run: client closed the connection',
    );
  });
});
