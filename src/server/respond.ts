// One place that writes a whole answer: status, type, length and body in a single write, for the
// webhook (JSON) and the health and metrics listener (plain text, the exposition format).
import type { ServerResponse } from 'node:http';

const json = 'application/json; charset=utf-8';

/** Writes the answer; for a HEAD request (`head`), the same headers without the body. */
export function send(res: ServerResponse, code: number, contentType: string, body: string, head = false): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/** Writes a webhook answer (an AdmissionReview or a refusal's Status), closing its connection after it when `close`. */
export type Answer = (res: ServerResponse, code: number, body: string, close?: boolean) => void;

/**
 * The webhook's one writer, and so the one place `Connection: close` is set: asked for, or once
 * shutdown has begun — a request that arrived before then must close its connection too, or the
 * listener waits for it until the drain timeout, and kube-apiserver would otherwise keep sending on
 * a pooled connection until it is cut mid-request.
 */
export function webhookAnswer(isDraining: () => boolean): Answer {
  return (res, code, body, close = false) => {
    if (close || isDraining()) res.setHeader('Connection', 'close');
    send(res, code, json, body);
  };
}
