// A log destination for the server under test that keeps what is written, read back as JSON lines.
import { Writable } from 'node:stream';

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
