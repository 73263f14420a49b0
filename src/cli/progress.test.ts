import { describe, expect, it } from 'vitest';
import { progressBar } from './progress.ts';

function terminal(isTTY: boolean, columns = 120) {
  let text = '';
  return { stream: { isTTY, columns, write: (t: string) => (text += t) }, text: () => text };
}

describe('progressBar', () => {
  it('draws nothing when the stream is not a terminal', () => {
    const { stream, text } = terminal(false);
    const bar = progressBar(stream, () => 0);
    bar.update(1, 2, 'files', 10);
    bar.end();
    expect(text()).toBe('');
  });

  it('draws the bar in place on a terminal, and clears it at the end', () => {
    const { stream, text } = terminal(true);
    const bar = progressBar(stream, () => 0);
    bar.update(5, 10, 'resources', 1234);
    expect(text()).toBe(`\r[${'#'.repeat(15)}${'-'.repeat(15)}] 5/10 resources, 1234 objects audited\x1b[K`);
    bar.end();
    expect(text().endsWith('\x1b[K\r\x1b[K')).toBe(true);
  });

  it('redraws at most once per interval, and fits the terminal width', () => {
    const { stream, text } = terminal(true, 20);
    let clock = 0;
    const bar = progressBar(stream, () => clock, 100);
    bar.update(1, 4, 'files', 1);
    bar.update(2, 4, 'files', 2);
    clock = 150;
    bar.update(3, 4, 'files', 3);
    const draws = text().split('\r').filter(Boolean);
    expect(draws).toHaveLength(2);
    expect(draws[1]).toBe(`[${'#'.repeat(18)}\x1b[K`);
  });

  it('clears nothing when nothing was drawn', () => {
    const { stream, text } = terminal(true);
    progressBar(stream).end();
    expect(text()).toBe('');
  });
});
