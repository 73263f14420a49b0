// A refused body is read off only so far: a caller that declares or sends far more than the limit
// gets its answer after at most maxDrainBytes, and the connection closes after it.
import { connect } from 'node:tls';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runServer } from '../../src/cli/serve.ts';
import { maxDrainBytes } from '../../src/server/refusals.ts';
import { writeTestCertificates } from '../support/certs.ts';
import { testServeConfig } from '../support/serve-config.ts';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('a body too large to read', () => {
  it('is answered 413 once the first maxDrainBytes are read, not after the whole body, and the connection closes', async () => {
    const certs = await writeTestCertificates();
    const config = testServeConfig({ tlsCertFile: certs.certFile, tlsPrivateKeyFile: certs.keyFile, clusterState: 'examples/cluster-state.yaml', requestTimeout: '30s' });
    const server = await runServer(config, { stdout: new Writable({ write: (_chunk, _encoding, done) => done() }) });
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
