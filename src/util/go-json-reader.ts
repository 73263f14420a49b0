// Reading JSON already checked by goJsonSyntaxError, token by token in document order, so that a
// decoder can reproduce Go's encoding/json: which field a key lands in, which type error comes first.
// Only the shapes a decoder asks for are descended into; anything else is skipped iteratively.

/** Go's UnmarshalTypeError wording for a JSON value's kind: "string", "number", "bool", "object", "array". */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

export class GoJsonReader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** The kind of the value at the cursor (after white space). */
  peek(): JsonKind {
    this.#skipSpace();
    switch (this.#text[this.#at]) {
      case '{':
        return 'object';
      case '[':
        return 'array';
      case '"':
        return 'string';
      case 't':
      case 'f':
        return 'bool';
      case 'n':
        return 'null';
      default:
        return 'number';
    }
  }

  readString(): string {
    this.#skipSpace();
    const start = this.#at;
    this.#at++;
    while (this.#text[this.#at] !== '"') this.#at += this.#text[this.#at] === '\\' ? 2 : 1;
    this.#at++;
    return JSON.parse(this.#text.slice(start, this.#at)) as string;
  }

  /** The number's literal text, as Go's decoder sees it ("1.5", "1e3"). */
  readNumber(): string {
    this.#skipSpace();
    const start = this.#at;
    while (this.#at < this.#text.length && /[-+.eE0-9]/.test(this.#text[this.#at]!)) this.#at++;
    return this.#text.slice(start, this.#at);
  }

  /** Each element of the array at the cursor; the callback must consume the element. */
  readArray(element: () => void): void {
    this.#skipSpace();
    this.#at++; // [
    if (this.#next() === ']') {
      this.#at++;
      return;
    }
    for (;;) {
      element();
      const c = this.#next();
      this.#at++; // , or ]
      if (c === ']') return;
    }
  }

  /** Each member of the object at the cursor; the callback must consume the value. */
  readObject(member: (key: string) => void): void {
    this.#skipSpace();
    this.#at++; // {
    if (this.#next() === '}') {
      this.#at++;
      return;
    }
    for (;;) {
      const key = this.readString();
      this.#next();
      this.#at++; // :
      member(key);
      const c = this.#next();
      this.#at++; // , or }
      if (c === '}') return;
    }
  }

  /** Skips the value at the cursor, however deep, without recursion. */
  skip(): void {
    this.#skipSpace();
    let depth = 0;
    do {
      const c = this.#text[this.#at]!;
      if (c === '"') {
        this.readString();
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      else if (c !== ',' && c !== ':' && !isSpace(c)) {
        // A number or literal: to its end.
        while (this.#at < this.#text.length && !/[,\]}\s]/.test(this.#text[this.#at]!)) this.#at++;
        continue;
      }
      this.#at++;
    } while (depth > 0);
  }

  #next(): string | undefined {
    this.#skipSpace();
    return this.#text[this.#at];
  }

  #skipSpace(): void {
    while (this.#at < this.#text.length && isSpace(this.#text[this.#at]!)) this.#at++;
  }
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** Go's encoding/json field matching: case-insensitive for ASCII, plus the Kelvin sign and long s. */
export function foldName(name: string): string {
  return name.replace(/[a-z\u212a\u017f]/g, (c) => (c === '\u212a' ? 'K' : c === '\u017f' ? 'S' : c.toUpperCase()));
}
