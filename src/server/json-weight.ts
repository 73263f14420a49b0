// What a JSON body will cost once parsed, read off its bytes before JSON.parse allocates anything.
// A body's size says little about its heap: 3 MiB of "{}," parses into a million objects (about
// 60 MiB), 3 MiB of one string into 3 MiB. One linear pass counts what V8 pays for (objects,
// arrays, values, keys, strings) and the nesting depth, which Go's encoding/json (and so
// kube-apiserver) caps at 10,000: nothing deeper can have come from the API server.

export interface JsonShape {
  readonly bytes: number;
  readonly objects: number;
  readonly arrays: number;
  /** Commas: one per value after the first in each object or array. */
  readonly separators: number;
  /** Colons: one per object member. */
  readonly members: number;
  readonly strings: number;
  readonly depth: number;
}

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const colon = 0x3a;

/** Counts the body's structure. Malformed JSON is counted as far as it goes; JSON.parse judges it. */
export function jsonShape(body: Uint8Array): JsonShape {
  let objects = 0;
  let arrays = 0;
  let separators = 0;
  let members = 0;
  let strings = 0;
  let depth = 0;
  let maxDepth = 0;
  const length = body.length;
  for (let i = 0; i < length; i++) {
    const byte = body[i]!;
    if (byte === quote) {
      strings++;
      // Skip the string: its bytes, escapes included, are data, not structure.
      i = stringEnd(body, i);
    } else if (byte === openBrace || byte === openBracket) {
      if (byte === openBrace) objects++;
      else arrays++;
      if (++depth > maxDepth) maxDepth = depth;
    } else if (byte === closeBrace || byte === closeBracket) {
      depth--;
    } else if (byte === comma) {
      separators++;
    } else if (byte === colon) {
      members++;
    }
  }
  return { bytes: length, objects, arrays, separators, members, strings, depth: maxDepth };
}

/**
 * Where the string opened at `start` ends: the next quote that no odd run of backslashes escapes, or
 * the body's end. The quotes are found natively (indexOf), so a body of long strings (annotations,
 * a ConfigMap's data) is passed over at memory speed rather than byte by byte.
 */
function stringEnd(body: Uint8Array, start: number): number {
  let end = start;
  for (;;) {
    end = body.indexOf(quote, end + 1);
    if (end < 0) return body.length;
    let backslashes = 0;
    for (let j = end - 1; j > start && body[j] === backslash; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/**
 * At most the heap the parsed value takes, as measured on V8 (Node 24) and rounded up: an empty
 * object 56 bytes, an empty array 32, an array slot or a number 8, an object member 32 beyond its
 * key, a string's header 16, and two bytes per character (a string with one character beyond
 * Latin-1 is stored two bytes a character, and UTF-8 never has fewer bytes than characters).
 */
export function parsedBytes(shape: JsonShape): number {
  return 2 * shape.bytes + 56 * shape.objects + 32 * shape.arrays + 8 * (shape.separators + 1) + 32 * shape.members + 16 * shape.strings;
}

/** Every request holds at least this much: the answer, the log line, its promises. */
const minimumRequestBytes = 64 * 1024;

/** The heap a request is expected to hold: its bytes, their string, the parsed value and, to mutate, the copy. */
export function requestWeight(shape: JsonShape, phase: 'admit' | 'validate'): number {
  const parsed = parsedBytes(shape);
  return Math.max(minimumRequestBytes, 3 * shape.bytes + (phase === 'admit' ? 2 * parsed : parsed));
}
