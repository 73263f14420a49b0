// What stands between kube-apiserver and our webhook in these tests: an HTTPS front on loopback with a
// certificate from the caBundle the configurations carry, which records each AdmissionReview
// kube-apiserver sends (its calls carry `?timeout=`; the webhook's own readiness probe does not) and
// passes it to the webhook unchanged; with self-managed TLS it presents the certificate the webhook
// issued itself, as the pod behind the Service would. It can also misbehave on demand — refuse,
// stall past the webhook's timeout or answer garbage — the faults kube-apiserver's failurePolicy is
// about; refusing applies to the probe too, as a Service that reaches no pod does.
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { AdmissionReview } from '../../src/admission/review.ts';

export interface WebhookCall {
  /** The webhook's name, as the configurations map the path to it. */
  webhook: string;
  /** The path kube-apiserver called, with its query (`/validate?timeout=10s`). */
  path: string;
  review: AdmissionReview;
  /** What the webhook answered, when it answered. */
  answer?: AdmissionReview;
  userAgent: string;
  /** SHA-256 fingerprint of the certificate the front presented on the call's connection (calls the front recorded). */
  servedCertificate?: string;
}

/** What the front does with a call: pass it on, or one of the faults. */
export type FrontBehaviour = 'forward' | 'reset' | 'stall' | 'garbage' | 'error-500';

export interface WebhookFront {
  port: number;
  /** `https://127.0.0.1:<port>`: what the chart's webhooks.url is set to. */
  url: string;
  /** kube-apiserver's calls, oldest first. */
  calls: WebhookCall[];
  /** How many other requests arrived: the webhook's own readiness probes, which go where kube-apiserver's calls go. */
  probes: number;
  /** Where calls go now (the webhook's port); undefined until it listens: calls are then reset. */
  target: number | undefined;
  behaviour: FrontBehaviour;
  /** Misbehave on this path only (`/validate`); calls to other paths are forwarded. */
  only?: string;
  /** Serve this certificate from now on, and verify the webhook's with this CA (self-managed TLS). */
  present(tls: FrontTls): void;
  close(): Promise<void>;
}

export interface FrontTls {
  cert: string;
  key: string;
  /** The CA that issued the webhook's own serving certificate. */
  ca: string;
}

export async function startWebhookFront(initial: FrontTls, webhookOf: (path: string) => string): Promise<WebhookFront> {
  const sockets = new Set<Socket>();
  let tls = initial;
  const front: WebhookFront = {
    port: 0,
    url: '',
    calls: [],
    probes: 0,
    target: undefined,
    behaviour: 'forward',
    present(next) {
      tls = next;
      server.setSecureContext({ cert: next.cert, key: next.key });
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks);
      let call: WebhookCall | undefined;
      if (path.includes('timeout=')) {
        call = {
          webhook: webhookOf(path.split('?')[0] ?? path),
          path,
          review: JSON.parse(body.toString('utf8')) as AdmissionReview,
          userAgent: req.headers['user-agent'] ?? '',
          servedCertificate: servedFingerprint(req.socket as TLSSocket),
        };
        front.calls.push(call);
      } else {
        front.probes++;
      }
      const applies = front.only === undefined || path.split('?')[0] === front.only;
      const behaviour = front.target === undefined ? 'reset' : applies ? front.behaviour : 'forward';
      switch (behaviour) {
        case 'reset':
          req.socket.destroy();
          return;
        case 'stall':
          // Never answers: kube-apiserver gives up at the webhook's timeoutSeconds.
          return;
        case 'garbage':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"this is": not an AdmissionReview');
          return;
        case 'error-500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('the front failed on purpose');
          return;
        case 'forward':
          forward(
            front.target!,
            tls.ca,
            path,
            req.headers,
            body,
            (status, headers, answer) => {
              if (call !== undefined && status === 200) call.answer = JSON.parse(answer.toString('utf8')) as AdmissionReview;
              res.writeHead(status, headers).end(answer);
            },
            () => req.socket.destroy(),
          );
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.port = (server.address() as { port: number }).port;
  front.url = `https://127.0.0.1:${front.port}`;
  return front;
}

function forward(
  port: number,
  ca: string,
  path: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  answer: (status: number, headers: Record<string, string | string[] | undefined>, body: Buffer) => void,
  fail: () => void,
): void {
  const { host: _host, connection: _connection, ...passed } = headers;
  const req = httpsRequest(
    { host: '127.0.0.1', port, path, method: 'POST', ca, headers: { ...passed, 'content-length': body.length }, agent: false },
    (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const { connection: _c, 'transfer-encoding': _t, 'keep-alive': _k, ...kept } = res.headers;
        answer(res.statusCode ?? 502, kept, Buffer.concat(chunks));
      });
      res.on('error', fail);
    },
  );
  req.on('error', fail);
  req.end(body);
}

function servedFingerprint(socket: TLSSocket): string {
  const certificate = socket.getCertificate();
  return certificate !== null && 'fingerprint256' in certificate ? certificate.fingerprint256 : '';
}
