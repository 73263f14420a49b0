import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bodyText, discardBody, readBody } from './read-body.ts';

/** A request body that arrives as the test writes it. */
function request(): PassThrough & IncomingMessage {
  return new PassThrough() as PassThrough & IncomingMessage;
}

describe('readBody', () => {
  it('reads a declared body, chunk by chunk, into one buffer of that length, freed as its text is made', async () => {
    const text = '{"a":"héllo"}';
    const bytes = Buffer.from(text);
    const req = request();
    const read = readBody(req, 1024, bytes.length);
    req.write(bytes.subarray(0, 7));
    req.end(bytes.subarray(7));
    const body = await read;
    expect(body.length).toBe(bytes.length);
    expect(body.buffer.byteLength).toBe(bytes.length);
    expect(bodyText(body)).toBe(text);
    expect(body.length).toBe(0);
    expect(body.buffer.byteLength).toBe(0);
  });

  it('reads a body of unknown length up to the limit, and gives back only what came', async () => {
    const req = request();
    const read = readBody(req, 8, undefined);
    req.end('{"a":1}');
    const body = await read;
    expect(body.toString()).toBe('{"a":1}');
    discardBody(body);
    discardBody(body);
    expect(body.length).toBe(0);
  });

  it('refuses a body of unknown length as soon as it passes the limit, and leaves the request paused for the refusal', async () => {
    const req = request();
    const read = readBody(req, 8, undefined);
    req.write('12345');
    req.write('6789');
    await expect(read).rejects.toMatchObject({ type: 'entity.too.large', message: 'request entity too large' });
    expect(req.isPaused()).toBe(true);
    expect(req.listenerCount('data')).toBe(0);
  });

  it('refuses a body that ends short of its declared length', async () => {
    const req = request();
    const read = readBody(req, 1024, 10);
    req.end('{}');
    await expect(read).rejects.toMatchObject({ type: 'request.size.invalid', message: 'request size did not match content length' });
  });

  it('gives up on a body whose connection closes before its end, or had closed before the read began', async () => {
    const req = request();
    const read = readBody(req, 1024, 10);
    req.write('{');
    req.destroy();
    await expect(read).rejects.toMatchObject({ type: 'request.aborted' });
    const gone = request();
    gone.destroy();
    await expect(readBody(gone, 1024, 10)).rejects.toMatchObject({ type: 'request.aborted' });
  });
});
