// The baseline: a bare express HTTPS handler that parses the AdmissionReview and answers allowed.
// Nothing a webhook on this stack can do is cheaper, so it is the ceiling we are measured against.
// Run as a child: node bench/baseline.ts <port> <cert> <key>; prints "ready" when listening.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import express from 'express';

const [port, certFile, keyFile] = process.argv.slice(2);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post(['/mutate', '/validate'], express.json({ limit: 7 * 1024 * 1024 }), (req, res) => {
  const uid = (req.body as { request?: { uid?: string } }).request?.uid ?? '';
  res.status(200).type('application/json').send(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
});
const server = createServer({ cert: readFileSync(certFile!), key: readFileSync(keyFile!), minVersion: 'TLSv1.2' }, app);
server.keepAliveTimeout = 120_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
