// JSON-lines logs (pino), created once at start-up and passed down; never read at import time.
// Request logs carry fixed fields only (uid, kind, namespace, name, operation, user, decision,
// duration): objects and secret data are never handed to the logger, so no redaction pass is paid
// per line.
import { pino, type Logger as PinoLogger } from 'pino';

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/**
 * Without a destination, logs go to stdout asynchronously (sonic-boom): lines written while a
 * write is in flight are batched, so a busy webhook does not make one syscall per request.
 * pino flushes what is pending when the process exits.
 */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): PinoLogger {
  const stream =
    destination === undefined || destination === process.stdout
      ? pino.destination({ dest: 1, sync: false })
      : destination;
  return pino({ level, base: { component: 'admission-chain' } }, stream as pino.DestinationStream);
}

