// A log destination for the server under test that keeps what is written, read back as JSON lines;
// and a Logger that keeps every line it is given, serialised.
import { Writable } from 'node:stream';
import type { Logger } from '../../src/ports/logger.ts';

export interface CapturedLog {
  readonly destination: Writable;
  lines(): Array<Record<string, unknown>>;
  /** Everything written, as written (for checking that nothing secret ever was). */
  text(): string;
}

export function capturedLog(): CapturedLog {
  const written: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const text = () => written.join('');
  return {
    destination,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** Every line logged, serialised, so tests can check nothing secret was ever written. */
export function recordingLogger(lines: string[]): Logger {
  const log = (level: string, bindings: Record<string, unknown>) => (objOrMsg: object | string, msg?: string) => {
    lines.push(JSON.stringify({ level, ...bindings, ...(typeof objOrMsg === 'string' ? { msg: objOrMsg } : { ...objOrMsg, msg }) }));
  };
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: log('debug', bindings),
    info: log('info', bindings),
    warn: log('warn', bindings),
    error: log('error', bindings),
    child: (more) => make({ ...bindings, ...more }),
    isLevelEnabled: () => true,
  });
  return make({});
}
