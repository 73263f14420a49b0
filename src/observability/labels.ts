// Label values that come from outside (status codes from errors) are folded into a fixed set, so a
// surprise never mints a new time series.

const knownWords = new Set(['timeout', 'canceled', 'network']);

/** A three-digit HTTP status code or one of timeout/canceled/network; anything else is "other". */
export function boundedCode(code: string): string {
  return /^[1-5][0-9]{2}$/.test(code) || knownWords.has(code) ? code : 'other';
}
