// The logging surface plugins and adapters use; pino's Logger satisfies it.
export interface LogFn {
  (obj: object, msg?: string): void;
  (msg: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  /** Whether a line at this level would be written: lets callers skip building it. */
  isLevelEnabled(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  isLevelEnabled: () => false,
};
