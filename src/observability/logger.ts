// JSON-lines logs (pino), created once at start-up and passed down; never read at import time.
import { pino, type Logger as PinoLogger } from 'pino';

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): PinoLogger {
  return pino(
    {
      level,
      base: { component: 'admission-chain' },
      // Defence in depth: these fields must never reach a log line.
      redact: { paths: ['*.data', '*.stringData', '*.token', '*.password', 'object', 'oldObject'], remove: true },
    },
    destination as pino.DestinationStream | undefined,
  );
}
