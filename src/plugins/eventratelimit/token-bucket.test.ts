// The token bucket against golang.org/x/time/rate's arithmetic at the edges the table does not
// reach: a first event on a full bucket, a refill shorter than a token, a clock that goes back.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/support/clock.ts';
import { TokenBucket } from './token-bucket.ts';

describe('TokenBucket', () => {
  it('starts full and takes one token an event', () => {
    const bucket = new TokenBucket(1, 3, new ManualClock());
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, true, false]);
  });

  it('refills continuously: a third of a second at 3 qps is one token, a little less is none', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(3, 1, clock);
    expect(bucket.tryAccept()).toBe(true);
    clock.advance(333);
    expect(bucket.tryAccept()).toBe(false);
    // A refused event takes nothing and moves nothing: the time keeps counting from the last token.
    clock.advance(1);
    expect(bucket.tryAccept()).toBe(true);
  });

  it('counts a clock that went back as no time passed, until it is past the last token again', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(1, 1, clock);
    expect(bucket.tryAccept()).toBe(true);
    clock.advance(-10_000);
    expect(bucket.tryAccept()).toBe(false);
    clock.advance(10_999);
    expect(bucket.tryAccept()).toBe(false);
    clock.advance(1);
    expect(bucket.tryAccept()).toBe(true);
  });
});
