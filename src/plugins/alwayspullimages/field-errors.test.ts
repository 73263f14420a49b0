import { describe, expect, it } from 'vitest';
import { badRequest, StatusError } from '../../api/status-error.ts';
import { aggregate, notSupported } from './field-errors.ts';

describe('notSupported (field.NotSupported(...).Error())', () => {
  it('lists the supported values quoted, comma-separated', () => {
    expect(notSupported('spec.x', 'b', ['a', 'c'])).toBe('spec.x: Unsupported value: "b": supported values: "a", "c"');
  });
  it('has no detail when there are no supported values', () => {
    expect(notSupported('spec.x', '', [])).toBe('spec.x: Unsupported value: ""');
  });
});

describe('aggregate (utilerrors.NewAggregate as kube-apiserver reports it)', () => {
  const a = badRequest('a');
  const b = badRequest('b');
  it('one error: its message alone', () => {
    expect(aggregate([a]).message).toBe('a');
  });
  it('several: bracketed and comma-separated, in order', () => {
    expect(aggregate([b, a]).message).toBe('[b, a]');
  });
  it('drops repeated messages, and a single distinct message loses its brackets', () => {
    expect(aggregate([a, b, a]).message).toBe('[a, b]');
    expect(aggregate([a, badRequest('a')]).message).toBe('a');
  });
  it('is a 500 with the empty reason, carrying the errors as its cause', () => {
    const error = aggregate([a, b]);
    expect(error).toBeInstanceOf(StatusError);
    expect(error.status).toEqual({ status: 'Failure', code: 500, message: '[a, b]' });
    expect(error.cause).toEqual([a, b]);
  });
  it('refuses an empty list', () => {
    expect(() => aggregate([])).toThrow();
  });
});
