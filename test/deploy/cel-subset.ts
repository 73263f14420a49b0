// Evaluates the small CEL subset the chart's built-in matchConditions use (`!`, `&&`, `||`, `==`, `!=`,
// `null`, `in [...]`, single-quoted strings, `request.<field>...`, `object...` and `oldObject...`
// paths, `has(<path>.<field>)`), so tests can show which requests those conditions keep away from the
// webhook. Anything outside the subset is refused, never guessed; so is selecting a field that is not
// there or selecting from null (CEL's "no such key" / "no matching overload" errors).
const identifier = '[A-Za-z_][A-Za-z0-9_]*';
const pathPattern = `(?:request|oldObject|object)\\b(?:\\.${identifier})*`;
const allowedToken = new RegExp(
  `^(\\s+|!=|==|!|&&|\\|\\||\\(|\\)|\\[|\\]|,|in\\b|null\\b|'[^'\\\\]*'|has\\(${pathPattern}\\)|${pathPattern})`,
);
const isPath = (token: string): boolean => new RegExp(`^${pathPattern}$`).test(token);
const isString = (token: string): boolean => token.startsWith("'");

/** The variables a webhook matchCondition sees; object/oldObject are null when the request has none. */
export interface CelVariables {
  request: Record<string, unknown>;
  object?: unknown;
  oldObject?: unknown;
}

export function evaluateCelSubset(expression: string, variables: CelVariables): boolean {
  const tokens: string[] = [];
  for (let rest = expression; rest.length > 0; ) {
    const match = allowedToken.exec(rest);
    if (!match) throw new Error(`outside the supported CEL subset at: ${rest}`);
    if (match[0].trim() !== '') tokens.push(match[0]);
    rest = rest.slice(match[0].length);
  }
  const javascript = translate(tokens, expression);
  const evaluate = new Function('$path', '$has', `"use strict"; return (${javascript});`) as (
    path: (segments: string[]) => unknown,
    has: (segments: string[]) => boolean,
  ) => unknown;
  const roots = { request: variables.request, object: variables.object ?? null, oldObject: variables.oldObject ?? null };
  const result = evaluate(
    (segments) => select(roots, segments),
    (segments) => hasField(roots, segments),
  );
  if (typeof result !== 'boolean') throw new Error(`expression did not yield a boolean: ${expression}`);
  return result;
}

// Token by token into JavaScript: paths become checked selections, `x in [a, b]` becomes
// `[a, b].includes(x)` (only a path on the left and a flat list of strings on the right).
function translate(tokens: string[], expression: string): string {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (isPath(token) && tokens[i + 1] === 'in') {
      if (tokens[i + 2] !== '[') throw new Error(`'in' needs a list literal: ${expression}`);
      const end = tokens.indexOf(']', i + 3);
      const items = tokens.slice(i + 3, end);
      if (end < 0 || !items.every((item, k) => (k % 2 === 0 ? isString(item) : item === ',')))
        throw new Error(`'in' needs a flat list of strings: ${expression}`);
      out.push(`[${items.join('')}].includes(${pathCall('$path', token)})`);
      i = end;
    } else if (token === 'in') {
      throw new Error(`'in' needs a request/object path on its left: ${expression}`);
    } else if (token.startsWith('has(')) {
      out.push(pathCall('$has', token.slice(4, -1)));
    } else if (isPath(token)) {
      out.push(pathCall('$path', token));
    } else {
      out.push(token === '==' ? '===' : token === '!=' ? '!==' : token);
    }
  }
  return out.join(' ');
}

// Segments are identifiers (checked by the tokenizer), so their JSON form is safe to embed.
const pathCall = (fn: string, path: string): string => `${fn}(${JSON.stringify(path.split('.'))})`;

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function select(roots: Record<string, unknown>, segments: string[]): unknown {
  const [root, ...fields] = segments as [string, ...string[]];
  let value = roots[root];
  for (const field of fields) {
    if (!isMap(value)) throw new Error(`no matching overload selecting '${field}' in ${segments.join('.')}`);
    if (!Object.hasOwn(value, field)) throw new Error(`no such key: ${field}`);
    value = value[field];
  }
  return value;
}

// CEL's has(a.b.c): a.b must evaluate (errors otherwise) and be a map; true when it holds key c.
function hasField(roots: Record<string, unknown>, segments: string[]): boolean {
  const holder = select(roots, segments.slice(0, -1));
  if (!isMap(holder)) throw new Error(`no matching overload for has() on ${segments.join('.')}`);
  return Object.hasOwn(holder, segments.at(-1) as string);
}
