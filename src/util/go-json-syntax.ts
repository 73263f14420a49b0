// Go's encoding/json syntax check (scanner.go checkValid), for error messages that read exactly
// like the Go error kube-apiserver returns when it decodes JSON found in an annotation:
// "invalid character 'x' looking for beginning of value", "unexpected end of JSON input".
// It walks the UTF-8 bytes as Go does, iteratively (no recursion, whatever the nesting).

/** Go's encoding/json nesting limit (scanner.go maxNestingDepth): nothing deeper decodes in kube-apiserver. */
export const maxNestingDepth = 10_000;

/** What the scanner expects inside an open container (Go's parseObjectKey, parseObjectValue, parseArrayValue). */
const Parse = { ObjectKey: 0, ObjectValue: 1, ArrayValue: 2 } as const;
type Parse = (typeof Parse)[keyof typeof Parse];

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: the offending byte, as strconv.Quote(string(rune(b))) with single quotes. */
export function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 92: '\\\\' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // A byte >= 0x80 is taken as the rune of that value: Latin-1, printable except controls, NBSP and soft hyphen.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** The message Go's json.Unmarshal gives for invalid JSON, or undefined when the text is valid JSON. */
export function goJsonSyntaxError(text: string): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const stack: Parse[] = [];
  const fail = (c: number, context: string) => `invalid character ${quoteChar(c)} ${context}`;

  let i = 0;
  const n = bytes.length;
  const skipSpace = () => {
    while (i < n && isSpace(bytes[i]!)) i++;
  };

  // A scalar starting at i: a string, a number or a literal; containers are the loop's.
  const scalar = (c: number): string | undefined => {
    if (c === 0x22) return stringBody();
    if (c === 0x2d || isDigit(c)) return number();
    if (c === 0x74) return literal('true');
    if (c === 0x66) return literal('false');
    if (c === 0x6e) return literal('null');
    return fail(c, 'looking for beginning of value');
  };

  const beginString = (context: string): string | undefined => {
    skipSpace();
    if (i >= n) return 'unexpected end of JSON input';
    if (bytes[i] !== 0x22) return fail(bytes[i]!, context);
    return stringBody();
  };

  const stringBody = (): string | undefined => {
    i++; // the opening quote
    while (i < n) {
      const c = bytes[i]!;
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c === 0x5c) {
        i++;
        if (i >= n) break;
        const e = bytes[i]!;
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= n) return 'unexpected end of JSON input';
            if (!isHex(bytes[i]!)) return fail(bytes[i]!, 'in \\u hexadecimal character escape');
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
          return fail(e, 'in string escape code');
        }
        i++;
        continue;
      }
      if (c < 0x20) return fail(c, 'in string literal');
      i++;
    }
    return 'unexpected end of JSON input';
  };

  const number = (): string | undefined => {
    if (bytes[i] === 0x2d) {
      i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(bytes[i]!)) return fail(bytes[i]!, 'in numeric literal');
    }
    if (bytes[i] === 0x30) i++;
    else while (i < n && isDigit(bytes[i]!)) i++;
    if (i < n && bytes[i] === 0x2e) {
      i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(bytes[i]!)) return fail(bytes[i]!, 'after decimal point in numeric literal');
      while (i < n && isDigit(bytes[i]!)) i++;
    }
    if (i < n && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
      i++;
      if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
      if (i >= n) return 'unexpected end of JSON input';
      if (!isDigit(bytes[i]!)) return fail(bytes[i]!, 'in exponent of numeric literal');
      while (i < n && isDigit(bytes[i]!)) i++;
    }
    return undefined;
  };

  const literal = (word: string): string | undefined => {
    i++;
    for (let k = 1; k < word.length; k++, i++) {
      if (i >= n) return 'unexpected end of JSON input';
      if (bytes[i] !== word.charCodeAt(k)) return fail(bytes[i]!, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    }
    return undefined;
  };

  let needValue = true;
  for (;;) {
    if (needValue) {
      skipSpace();
      if (i >= n) return 'unexpected end of JSON input';
      const c = bytes[i]!;
      needValue = false;
      if (c === 0x7b || c === 0x5b) {
        if (stack.length >= maxNestingDepth) return fail(c, 'exceeded max depth');
        i++;
        skipSpace();
        if (i < n && bytes[i] === (c === 0x7b ? 0x7d : 0x5d)) {
          i++;
          continue;
        }
        if (c === 0x5b) {
          stack.push(Parse.ArrayValue);
          needValue = true;
          continue;
        }
        stack.push(Parse.ObjectKey);
        const error = beginString('looking for beginning of object key string');
        if (error !== undefined) return error;
        continue;
      }
      const error = scalar(c);
      if (error !== undefined) return error;
      continue;
    }
    if (stack.length === 0) break;
    skipSpace();
    if (i >= n) return 'unexpected end of JSON input';
    const c = bytes[i]!;
    const state = stack[stack.length - 1]!;
    if (state === Parse.ObjectKey) {
      if (c !== 0x3a) return fail(c, 'after object key');
      i++;
      stack[stack.length - 1] = Parse.ObjectValue;
      needValue = true;
    } else if (state === Parse.ObjectValue) {
      if (c === 0x2c) {
        i++;
        stack[stack.length - 1] = Parse.ObjectKey;
        const error = beginString('looking for beginning of object key string');
        if (error !== undefined) return error;
      } else if (c === 0x7d) {
        i++;
        stack.pop();
      } else return fail(c, 'after object key:value pair');
    } else if (c === 0x2c) {
      i++;
      needValue = true;
    } else if (c === 0x5d) {
      i++;
      stack.pop();
    } else return fail(c, 'after array element');
  }
  skipSpace();
  if (i < n) return fail(bytes[i]!, 'after top-level value');
  return undefined;
}
