// One place that writes a whole answer: status, type, length and body in a single write, for the
// webhook (JSON) and the health and metrics listener (plain text, the exposition format).
import type { ServerResponse } from 'node:http';

/** Writes the answer; for a HEAD request (`head`), the same headers without the body. */
export function send(res: ServerResponse, code: number, contentType: string, body: string, head = false): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}
