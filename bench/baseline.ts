// The baselines: a bare express HTTPS handler that parses the AdmissionReview and answers allowed
// (the ceiling for a webhook on this stack), and with --plain the same without express (node:https
// and raw-body), the ceiling on Node itself. admission-chain is measured against both in one run.
// Run as a child: node bench/baseline.ts <port> <cert> <key> [--plain]; prints "ready" when listening.
import { readFileSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import express from 'express';
import getRawBody from 'raw-body';

const [port, certFile, keyFile, mode] = process.argv.slice(2);
const tls: ServerOptions = { cert: readFileSync(certFile!), key: readFileSync(keyFile!), minVersion: 'TLSv1.2' };

function answer(review: unknown): string {
  const uid = (review as { request?: { uid?: string } }).request?.uid ?? '';
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } });
}

const server =
  mode === '--plain'
    ? createServer(tls, (req, res) => {
        if (req.method !== 'POST' || (req.url !== '/mutate' && req.url !== '/validate')) {
          res.writeHead(404).end();
          return;
        }
        getRawBody(req, { limit: 7 * 1024 * 1024, length: req.headers['content-length'] }).then(
          (body) => {
            let json: string;
            try {
              json = answer(JSON.parse(body.toString('utf8')));
            } catch {
              res.writeHead(400).end();
              return;
            }
            res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) }).end(json);
          },
          () => res.writeHead(400).end(),
        );
      })
    : createServer(
        tls,
        express()
          .disable('x-powered-by')
          .set('etag', false)
          .post(['/mutate', '/validate'], express.json({ limit: 7 * 1024 * 1024 }), (req, res) => {
            res.status(200).type('application/json').send(answer(req.body));
          }),
      );
server.keepAliveTimeout = 120_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
