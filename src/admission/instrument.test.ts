import { describe, expect, it } from 'vitest';
import { deadlineOf, podAttributes } from '../../test/support/attributes.ts';
import { StatusError } from '../api/status-error.ts';
import { createMetrics } from '../observability/metrics.ts';
import type { RequestContext } from './attributes.ts';
import type { Deadline } from './deadline.ts';
import { forbidden } from './errors.ts';
import { instrumentPlugin } from './instrument.ts';
import type { AdmissionPlugin } from './plugin.ts';

const context = (annotations: Record<string, string> = {}, deadline = deadlineOf()): RequestContext => ({
  deadline,
  annotate: (key, value) => {
    annotations[key] = value;
  },
  warn: () => {},
});

async function observations(metrics: ReturnType<typeof createMetrics>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const value of (await metrics.controllerDuration.get()).values) {
    if (value.metricName !== 'admission_chain_controller_admission_duration_seconds_count') continue;
    counts[`${value.labels.name}/${value.labels.type}/${value.labels.operation}/rejected=${value.labels.rejected}`] = value.value;
  }
  return counts;
}

function plugin(step: NonNullable<AdmissionPlugin['validate']>): AdmissionPlugin {
  return { name: 'P', handles: () => true, admit: step, validate: step };
}

describe('instrumentPlugin', () => {
  it('keeps where the plugin says it writes, and says nothing for a plugin that does not', () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const mutates = [['spec', 'containers']] as const;
    expect(instrumentPlugin({ ...plugin(() => {}), mutates }, metrics).mutates).toBe(mutates);
    expect(
      'mutates' in
        instrumentPlugin(
          plugin(() => {}),
          metrics,
        ),
    ).toBe(false);
  });

  it('a synchronous step is timed as not rejected', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const wrapped = instrumentPlugin(
      plugin(() => {}),
      metrics,
    );
    await wrapped.validate!(podAttributes(), context());
    expect(await observations(metrics)).toEqual({ 'P/validate/CREATE/rejected=false': 1 });
  });

  it('a synchronous rejection is rethrown as the same value and timed as rejected', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const denial = forbidden(podAttributes(), 'no');
    const wrapped = instrumentPlugin(
      plugin(() => {
        throw denial;
      }),
      metrics,
    );
    await expect(wrapped.admit!(podAttributes(), context())).rejects.toBe(denial);
    expect(await observations(metrics)).toEqual({ 'P/admit/CREATE/rejected=true': 1 });
  });

  it('an asynchronous step is followed to its end: resolved as not rejected, rejected as rejected', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const denial = forbidden(podAttributes(), 'later');
    let fail = false;
    const wrapped = instrumentPlugin(
      plugin(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (fail) throw denial;
      }),
      metrics,
    );
    const pending = wrapped.validate!(podAttributes(), context());
    expect(pending).toBeInstanceOf(Promise);
    expect(await observations(metrics)).toEqual({});
    await pending;
    fail = true;
    await expect(wrapped.validate!(podAttributes(), context())).rejects.toBe(denial);
    expect(await observations(metrics)).toEqual({ 'P/validate/CREATE/rejected=false': 1, 'P/validate/CREATE/rejected=true': 1 });
  });

  it("passes the request's deadline on as it was given, the same object, to both steps", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const deadline = deadlineOf(new AbortController().signal, performance.now() + 10_000);
    const seen: Deadline[] = [];
    const wrapped = instrumentPlugin(
      plugin((_attributes, ctx) => {
        seen.push(ctx.deadline);
      }),
      metrics,
    );
    await wrapped.admit!(podAttributes(), context({}, deadline));
    await wrapped.validate!(podAttributes(), context({}, deadline));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(deadline);
    expect(seen[1]).toBe(deadline);
  });

  it('passes annotations through and counts the ORPE-style "path" annotation by value', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const annotations: Record<string, string> = {};
    const wrapped = instrumentPlugin(
      plugin((_attributes, ctx) => {
        ctx.annotate('path', 'unchanged');
        ctx.annotate('other', 'x');
      }),
      metrics,
    );
    await wrapped.validate!(podAttributes(), context(annotations));
    expect(annotations).toEqual({ path: 'unchanged', other: 'x' });
    const paths = (await metrics.pluginPaths.get()).values.map((v) => [v.labels, v.value]);
    expect(paths).toEqual([[{ name: 'P', path: 'unchanged' }, 1]]);
  });
});

describe('StatusError', () => {
  it('is an Error to every reader, without a captured stack', () => {
    const cause = new Error('underlying');
    const error = new StatusError({ status: 'Failure', code: 403, reason: 'Forbidden', message: 'pods "a" is forbidden: no' }, { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(StatusError);
    expect(error.name).toBe('StatusError');
    expect(error.message).toBe('pods "a" is forbidden: no');
    expect(error.code).toBe(403);
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('StatusError: pods "a" is forbidden: no');
    expect(error.stack).toBeUndefined();
    expect('cause' in new StatusError({ status: 'Failure', code: 500, message: 'x' })).toBe(false);
    expect(() => {
      throw error;
    }).toThrow(/is forbidden: no/);
  });
});
