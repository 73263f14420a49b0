// One place that writes a whole answer: status, type, length and body in a single write, for the
// webhook (JSON) and the health and metrics listener (plain text, the exposition format).
import type { ServerResponse } from 'node:http';
import { failureStatus } from '../admission/response.ts';
import type { AdmissionReview } from '../admission/review.ts';

const json = 'application/json; charset=utf-8';

/** Writes the answer; for a HEAD request (`head`), the same headers without the body. */
export function send(res: ServerResponse, code: number, contentType: string, body: string, head = false): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

export function sendReview(res: ServerResponse, review: AdmissionReview): void {
  send(res, 200, json, JSON.stringify(review));
}

/** Refuses the request itself (not an admission decision) with a one-line metav1.Status. */
export function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  send(res, code, json, JSON.stringify(failureStatus(code, reason, message)));
}
