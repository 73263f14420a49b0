// Go's time.Duration as its String method prints it ("1ns", "1.5ms", "30s", "5m0s", "1h0m0s"), for
// the configuration's range errors, which print the bounds and the value that way. Nanoseconds are
// a bigint: Go's int64 arithmetic (and its overflow) is the one the value went through.

const second = 1_000_000_000n;

export function goDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const u = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${fixed(u, 1000n, 3)}µs`;
  if (u < second) return `${sign}${fixed(u, 1_000_000n, 6)}ms`;
  let text = `${fixed(u % (60n * second), second, 9)}s`;
  const minutes = u / (60n * second);
  if (minutes > 0n) {
    text = `${minutes % 60n}m${text}`;
    const hours = minutes / 60n;
    if (hours > 0n) text = `${hours}h${text}`;
  }
  return sign + text;
}

/** value/scale with its fraction, trailing zeros dropped (Go's fmtFrac and fmtInt). */
function fixed(value: bigint, scale: bigint, digits: number): string {
  const whole = value / scale;
  const fraction = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return fraction === '' ? `${whole}` : `${whole}.${fraction}`;
}

/** Go's int64 arithmetic: wraps on overflow. */
export function int64(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}
