// Evaluates the small CEL subset the chart's built-in matchConditions use (`!`, `&&`, `||`, `==`,
// `in [...]`, single-quoted strings, `request.<field>...` paths), so tests can show which requests
// those conditions keep away from the webhook. Anything outside the subset is refused, never guessed.
const allowedToken = /^(\s+|!|&&|\|\||==|\(|\)|\[|\]|,|in\b|'[^'\\]*'|request(\.[A-Za-z_][A-Za-z0-9_]*)+)/;

export function evaluateCelSubset(expression: string, request: Record<string, unknown>): boolean {
  const tokens: string[] = [];
  for (let rest = expression; rest.length > 0; ) {
    const match = allowedToken.exec(rest);
    if (!match) throw new Error(`outside the supported CEL subset at: ${rest}`);
    tokens.push(match[0]);
    rest = rest.slice(match[0].length);
  }
  // `x in [a, b]` becomes `[a, b].includes(x)`; everything else in the subset is already JavaScript.
  const javascript = tokens
    .join('')
    .replace(/(request(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s+in\s+(\[[^\]]*\])/g, '$2.includes($1)')
    .replace(/==/g, '===');
  const evaluate = new Function('request', `"use strict"; return (${javascript});`) as (r: unknown) => unknown;
  const result = evaluate(request);
  if (typeof result !== 'boolean') throw new Error(`expression did not yield a boolean: ${expression}`);
  return result;
}
