// A refused body is read off only so far: a caller that declares or sends far more than the limit,
// with a Content-Length or chunked, gets its answer after at most maxDrainBytes or maxDrainMs, and
// the connection closes after it; a body that ends within that keeps its connection.

import { Writable } from 'node:stream';
import { connect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maxDrainBytes } from '../../src/server/refusal-handler.ts';
import { startWebhook } from '../../src/wiring/server.ts';
import { writeTestCertificates } from '../support/certs.ts';
import { podReview } from '../support/reviews.ts';
import { testServeConfig } from '../support/serve-config.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('a body too large to read', () => {
  it('is answered 413 once the first maxDrainBytes are read, not after the whole body, and the connection closes', async () => {
    const certs = await writeTestCertificates();
    const config = testServeConfig({
      tlsCertFile: certs.certFile,
      tlsPrivateKeyFile: certs.keyFile,
      clusterState: 'examples/cluster-state.yaml',
      requestTimeout: '30s',
    });
    const server = await startWebhook(config, new Writable({ write: (_chunk, _encoding, done) => done() }));
    stop = () => server.shutdown();
    const declared = 64 * 1024 * 1024;
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: certs.caCert, servername: 'localhost' });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write(`POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
    // Four times what is read off, a sixteenth of what was declared: the answer must come anyway.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < 4 * maxDrainBytes && !socket.destroyed; sent += chunk.length) socket.write(chunk);
    await closed;
    const answer = Buffer.concat(received).toString();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain(`request body is larger than ${config.maxRequestBodyBytes} bytes`);
  });
});

/** One answer read off a raw connection. */
interface Answer {
  status: number;
  /** The status line and headers, as sent. */
  head: string;
  body: string;
}

/**
 * A TLS connection that sends HTTP/1.1 by hand, so a body can go out chunked at any pace, and reads
 * the answers as they come; `answer()` is undefined once the connection closed without one.
 */
async function openConnection(port: number, ca: string) {
  const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  // The server may close while the body is still going out: that is what some tests expect.
  socket.on('error', () => {});
  let received = Buffer.alloc(0);
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => wake());
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  return {
    socket,
    closed,
    async answer(): Promise<Answer | undefined> {
      for (;;) {
        const parsed = parseAnswer(received);
        if (parsed !== undefined) {
          received = received.subarray(parsed.length);
          return parsed.answer;
        }
        if (socket.destroyed) return undefined;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    /** The head of a POST to /validate whose body comes chunked. */
    startChunked(): void {
      socket.write('POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    },
    chunk(data: Buffer): void {
      socket.write(`${data.length.toString(16)}\r\n`);
      socket.write(data);
      socket.write('\r\n');
    },
    endChunked(): void {
      socket.write('0\r\n\r\n');
    },
  };
}

function parseAnswer(received: Buffer): { answer: Answer; length: number } | undefined {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = received.subarray(0, headEnd).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  const bodyStart = headEnd + 4;
  if (received.length < bodyStart + length) return undefined;
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
  return { answer: { status, head, body: received.subarray(bodyStart, bodyStart + length).toString('utf8') }, length: bodyStart + length };
}

/** An AdmissionReview of exactly `size` bytes: a pod review, then spaces (still valid JSON). */
function reviewOfSize(uid: string, size: number): Buffer {
  const review = Buffer.from(JSON.stringify(podReview({ uid })));
  return Buffer.concat([review, Buffer.alloc(size - review.length, 0x20)]);
}

/** The body in 64 KiB chunks, each sent as soon as the last is queued. */
function sendChunks(send: (data: Buffer) => void, body: Buffer): void {
  for (let at = 0; at < body.length; at += 64 * 1024) send(body.subarray(at, at + 64 * 1024));
}

describe('a chunked body', () => {
  let server: Awaited<ReturnType<typeof startWebhook>>;
  let ca: string;
  let limit: number;
  beforeAll(async () => {
    const certs = await writeTestCertificates();
    const config = testServeConfig({
      tlsCertFile: certs.certFile,
      tlsPrivateKeyFile: certs.keyFile,
      clusterState: 'examples/cluster-state.yaml',
    });
    server = await startWebhook(config, new Writable({ write: (_chunk, _encoding, done) => done() }));
    ca = certs.caCert;
    limit = config.maxRequestBodyBytes;
  });
  afterAll(() => server.shutdown());

  it('a byte over the limit is read off and answered 413 on a connection that stays open, which then carries bodies at and under the limit', async () => {
    const connection = await openConnection(server.port, ca);
    const sizes: Array<[uid: string, size: number, status: number]> = [
      ['over', limit + 1, 413],
      ['at', limit, 200],
      ['under', limit - 1, 200],
    ];
    for (const [uid, size, status] of sizes) {
      connection.startChunked();
      sendChunks((data) => connection.chunk(data), reviewOfSize(uid, size));
      connection.endChunked();
      const answer = await connection.answer();
      expect(answer?.status, uid).toBe(status);
      expect(answer?.head).not.toMatch(/\r\nconnection: close/i);
      if (status === 413) expect(answer?.body).toContain(`request body is larger than ${limit} bytes`);
      else expect(JSON.parse(answer!.body)).toMatchObject({ kind: 'AdmissionReview', response: { uid } });
    }
    connection.socket.destroy();
  });

  it('of 8 MiB is answered 413 within a second, and the connection closes', async () => {
    const connection = await openConnection(server.port, ca);
    const started = performance.now();
    connection.startChunked();
    sendChunks((data) => connection.chunk(data), Buffer.alloc(8 * 1024 * 1024, 0x20));
    connection.endChunked();
    const answer = await connection.answer();
    const took = performance.now() - started;
    expect(answer?.status).toBe(413);
    expect(answer?.head).toMatch(/\r\nconnection: close\r\n/i);
    await connection.closed;
    // The bound the caller is promised. Reading the limit and the drain bound off a loopback TLS
    // connection takes tens of milliseconds on a loaded machine; a stalled answer takes the
    // server's request timeout (seconds).
    expect(took).toBeLessThan(1000);
  });

  it('that crosses the limit slowly and never ends is answered 413 without waiting for the rest, and the connection closes', async () => {
    const connection = await openConnection(server.port, ca);
    connection.startChunked();
    sendChunks((data) => connection.chunk(data), Buffer.alloc(limit - 2 * 1024, 0x20));
    // Then a kibibyte at a time past the limit: at this pace the drain bound in bytes would take
    // longer than the server's request timeout to fill.
    const trickle = setInterval(() => connection.chunk(Buffer.alloc(1024, 0x20)), 100);
    try {
      const answer = await connection.answer();
      expect(answer?.status).toBe(413);
      expect(answer?.head).toMatch(/\r\nconnection: close\r\n/i);
      await connection.closed;
    } finally {
      clearInterval(trickle);
    }
  });
});
