// A request's body, read into one buffer allocated before its first byte: of its declared length, or
// of the limit when it declares none (chunked). What a body holds while it is read is then the share
// the reading budget gave it: each chunk is copied in and let go, and there is no list of chunks
// and no concatenated copy beside it (a chunk list and its concatenation hold twice the body at the
// end). Once decoded, its memory is given back at once instead of when the collector finds it.
// Failures carry the types the route turns into refusals (raw-body's, which express users know).
import type { IncomingMessage } from 'node:http';

export type BodyErrorType = 'entity.too.large' | 'request.aborted' | 'request.size.invalid';

export class BodyError extends Error {
  readonly type: BodyErrorType;
  constructor(type: BodyErrorType, message: string) {
    super(message);
    this.name = 'BodyError';
    this.type = type;
  }
}

/**
 * The whole body. Rejects once it passes `limit`, when the caller goes away before its end, or when
 * it ends short of its declared length; on rejection the request is left paused, for the refusal
 * to read off what it will.
 */
export function readBody(req: IncomingMessage, limit: number, declared: number | undefined): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    // Never from Node's shared pool, so the memory is this body's alone to give back. A chunked body
    // gets the limit: untouched pages of an allocation this large take no memory until written.
    const buffer = Buffer.allocUnsafeSlow(declared ?? limit);
    let received = 0;
    const settle = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('close', onAborted);
      req.off('error', onError);
      if (error === undefined) {
        resolve(buffer.subarray(0, received));
        return;
      }
      req.pause();
      discardBody(buffer);
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > buffer.length) {
        settle(
          declared === undefined
            ? new BodyError('entity.too.large', 'request entity too large')
            : new BodyError('request.size.invalid', 'request size did not match content length'),
        );
        return;
      }
      chunk.copy(buffer, received);
      received += chunk.length;
    };
    const onEnd = () =>
      settle(
        declared !== undefined && received !== declared
          ? new BodyError('request.size.invalid', 'request size did not match content length')
          : undefined,
      );
    // A connection that closes before the body's end, however it closes.
    const onAborted = () => settle(new BodyError('request.aborted', 'request aborted'));
    const onError = (error: Error) => settle(error);
    // The caller may have gone while the body waited for its share.
    if (!req.readable) {
      settle(new BodyError('request.aborted', 'request aborted'));
      return;
    }
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('aborted', onAborted);
    req.once('close', onAborted);
    req.once('error', onError);
  });
}

/** The body as the text JSON.parse reads; the bytes are given back as it is made (the buffer is empty after). */
export function bodyText(body: Buffer): string {
  const text = body.toString('utf8');
  discardBody(body);
  return text;
}

/**
 * Frees a body's memory now (the buffer is empty after). Only for a buffer from readBody, which owns
 * all of its memory: detaching a pooled buffer would take its neighbours' bytes with it.
 */
export function discardBody(body: Buffer): void {
  const memory = body.buffer as ArrayBuffer & { readonly detached: boolean; transfer(length: number): ArrayBuffer };
  if (!memory.detached) memory.transfer(0);
}
