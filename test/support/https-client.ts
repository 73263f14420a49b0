// A small HTTPS client for tests that trusts a given CA (node:https; fetch cannot take a CA).

import { request as httpRequest } from 'node:http';
import { type Agent, request as httpsRequest } from 'node:https';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: like fetch's Response.json, callers name the shape they expect
  json<T = any>(): T;
}

export function post(
  url: string,
  body: string | Buffer,
  options: { ca: string; contentType?: string; agent?: Agent; method?: string; headers?: Record<string, string> },
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'POST',
        ca: options.ca,
        agent: options.agent,
        headers: {
          'content-type': options.contentType ?? 'application/json',
          'content-length': Buffer.byteLength(body),
          ...options.headers,
        },
      },
      (res) => collect(res, resolve, reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function get(url: string, options: { ca?: string } = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = url.startsWith('https:')
      ? httpsRequest(url, { ca: options.ca }, (res) => collect(res, resolve, reject))
      : httpRequest(url, (res) => collect(res, resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

function collect(res: import('node:http').IncomingMessage, resolve: (r: TestResponse) => void, reject: (e: Error) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('error', reject);
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
  });
}
