// One webhook's route, as its steps: check the headers → read the body within the in-flight
// budget and the deadline → weigh it and take room to work → parse and decode the AdmissionReview
// → handle it → answer. A step that refuses throws a Refusal (refusal.ts), which express 5 carries
// from the returned promise to the app's one error handler (refusal-handler.ts).
import type { Request, Response } from 'express';
import type { Phase } from '../admission/chain.ts';
import type { Deadline } from '../admission/deadline.ts';
import type { AdmissionHandler } from '../admission/handler.ts';
import { BadReviewError, decodeReview, responseReview } from '../admission/review.ts';
import type { Budget, Release } from '../util/budget.ts';
import { maxNestingDepth } from '../util/go-json-syntax.ts';
import { requestDeadline, requestTimeoutMs } from './deadline.ts';
import { jsonShape, requestWeight } from './json-weight.ts';
import type { LoopLoad } from './loop-load.ts';
import type { Webhook } from './observed-handler.ts';
import { BodyError, bodyText, discardBody, readBody } from './read-body.ts';
import { badReview, noRoom, notJson, tooDeep, tooHeavy, tooLarge, unreadable, unsupportedEncoding, wrongContentType } from './refusal.ts';
import type { RouteLocals } from './refusal-handler.ts';
import type { Answer } from './respond.ts';

/** What the requests in flight may hold, and what waits for room. */
export interface Limits {
  readonly maxBodyBytes: number;
  /** Bodies being read and not yet decoded, by the buffer each is read into; holds at least maxBodyBytes, so every body's share fits. */
  readonly reading: Budget;
  /** Requests at work, by the heap their bodies will take (json-weight.ts); a heavy one's until its heap is collected. */
  readonly working: Budget;
}

export interface ReviewRouteOptions {
  webhook: Webhook;
  phase: Phase;
  handler: AdmissionHandler;
  limits: Limits;
  requestTimeoutMs: number;
  loopLoad: Pick<LoopLoad, 'busy'>;
  answer: Answer;
}

/**
 * From this estimated heap on (a body of a few hundred KiB), a request yields between its steps, and
 * its share of the in-flight budget is held until the heap it took is collected: objects that live
 * that long reach V8's old generation, which only a full collection frees.
 */
const heavyRequestBytes = 8 * 1024 * 1024;

/** A body read, and its share of the reading budget, held until the body is decoded or dropped. */
interface ReadBody {
  readonly bytes: Buffer;
  readonly release: Release;
}

export function reviewRoute(options: ReviewRouteOptions): (req: Request, res: Response) => Promise<void> {
  const { webhook, phase, limits, handler, loopLoad } = options;
  return async (req, res) => {
    (res.locals as RouteLocals).webhook = webhook;
    const declared = checkHeaders(req, limits.maxBodyBytes);
    const deadline = requestDeadline(res, requestTimeoutMs(options.requestTimeoutMs, req.url));
    const body = await readWithin(req, declared, limits, deadline);
    let releaseWork: Release | undefined;
    try {
      const weight = weigh(body.bytes, phase, limits.working.capacity);
      const heavy = weight >= heavyRequestBytes;
      // Room to work, in arrival order; a heavy request's is held until its heap is collected.
      releaseWork = await room(limits.working, weight, heavy, deadline);
      // A heavy request's synchronous steps (parse, the chain, the answer) each take their own turn
      // of the event loop, so probes, scrapes and small requests get in between them, and between
      // one heavy request and the next (a grant after a release would otherwise run at once).
      if (heavy) await nextLoopTurn();
      const review = parseAndDecode(body);
      if (heavy) await nextLoopTurn();
      const { response } = await handler(review.request, deadline);
      // On a busy loop the answer is written from the event loop's check phase, once every request
      // that arrived with this one has been read and handled: the answers of one loop turn then
      // leave together instead of one write (and one wake-up of the caller) per read, about 20 %
      // more throughput at saturation on loopback. A loop with idle time answers at once: holding
      // the answer there only makes it wait for the requests that happened to arrive with it, which
      // lengthens the tail at a steady 1,000 req/s.
      if (heavy || loopLoad.busy()) await nextLoopTurn();
      options.answer(res, 200, JSON.stringify(responseReview(review.apiVersion, response)));
    } finally {
      discardBody(body.bytes);
      body.release();
      releaseWork?.();
    }
  };
}

/**
 * The content type and encoding, and the declared length, checked before a byte of the body is
 * read. Returns the declared length, when the caller declared one.
 */
function checkHeaders(req: Request, maxBodyBytes: number): number | undefined {
  const type = req.headers['content-type'] ?? '';
  if (contentType(type) !== 'application/json') throw wrongContentType(type);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') throw unsupportedEncoding(encoding);
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBodyBytes) throw tooLarge(maxBodyBytes);
  return declared;
}

/** The body, read once there is room to hold it, and before the deadline. */
async function readWithin(req: Request, declared: number | undefined, limits: Limits, deadline: Deadline): Promise<ReadBody> {
  // A body of unknown length may be as large as the limit allows.
  const release = await room(limits.reading, declared ?? limits.maxBodyBytes, false, deadline);
  // A body that has not arrived by the deadline never will in time: stop reading, close.
  const stopReading = () => req.destroy();
  deadline.signal.addEventListener('abort', stopReading, { once: true });
  try {
    return { bytes: await readBody(req, limits.maxBodyBytes, declared), release };
  } catch (error) {
    release();
    if (!(error instanceof BodyError)) throw error;
    throw error.type === 'entity.too.large' ? tooLarge(limits.maxBodyBytes) : unreadable(error.message);
  } finally {
    deadline.signal.removeEventListener('abort', stopReading);
  }
}

/** The heap the body will take once parsed, from one pass over its bytes before JSON.parse allocates anything. */
function weigh(bytes: Buffer, phase: Phase, capacity: number): number {
  const shape = jsonShape(bytes);
  if (shape.depth > maxNestingDepth) throw tooDeep();
  const weight = requestWeight(shape, phase);
  if (weight > capacity) throw tooHeavy(weight, capacity);
  return weight;
}

/** A share of a budget: at once when it fits and nobody waits (most requests), else when its turn comes before the deadline. */
async function room(budget: Budget, amount: number, untilCollected: boolean, deadline: Deadline): Promise<Release> {
  try {
    return await budget.acquire(amount, deadline.signal, { untilCollected });
  } catch {
    throw noRoom();
  }
}

function parseAndDecode(body: ReadBody): ReturnType<typeof decodeReview> {
  let parsed: unknown;
  try {
    // The bytes are freed as their text is made, before parsing: the next body may come in.
    const text = bodyText(body.bytes);
    body.release();
    parsed = JSON.parse(text);
  } catch (error) {
    throw notJson((error as Error).message);
  }
  try {
    return decodeReview(parsed);
  } catch (error) {
    if (!(error instanceof BadReviewError)) throw error;
    throw badReview(error.message);
  }
}

/** The Content-Length the caller declared, when it declared one that is a number. */
function declaredLength(req: Request): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function contentType(header: string): string {
  // kube-apiserver sends exactly this; anything else takes the general path.
  if (header === 'application/json') return header;
  return header.split(';')[0]!.trim().toLowerCase();
}

function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
