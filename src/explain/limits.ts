// What kube-apiserver lets through, so an explanation arrives whole.
//
// Warnings: the API server hands each admission webhook warning to its warning recorder
// (k8s.io/apiserver pkg/endpoints/filters/warning.go). Up to 4096 runes in all, per request, every
// warning passes whole; past that, every warning is cut to 256 runes, and once 4096 runes have been
// written again, later ones are dropped. A warning with a control character (a newline included)
// is dropped outright (apimachinery's NewWarningHeader rejects it). So each of ours is one line of
// at most 256 runes, and one explanation sends a handful at most.
//
// Audit annotations: no limit on a value, but a key must be a qualified name (a name part of at most
// 63 characters, checked by the admission attributes' AddAnnotation), and with audit truncation on
// (plugin/pkg/audit/truncate, default --audit-log-truncate-max-event-size 100 KiB) an event still
// too large once the request and response objects are dropped is not written at all. Ours stays a
// small fraction of that.

/** truncateItemRunes: the length every warning is cut to once the request's warnings pass 4096 runes. */
export const maxWarningRunes = 256;
/** truncateAtTotalRunes: what all warnings of one request may take before they are cut. */
export const maxWarningTotalRunes = 4096;
/** The most warnings one explanation adds (every one at most maxWarningRunes): a quarter of the total. */
export const maxWarningsPerExplanation = 4;
/** An explanation's audit annotation (and log field), in UTF-8 bytes. */
export const maxAnnotationBytes = 8 * 1024;

/** unicode.IsControl: C0, DEL and C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;
/** A UTF-16 surrogate without its pair, which no UTF-8 encoding carries. */
const loneSurrogates = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with every control character written as an escape, so a warning header keeps it. */
export function withoutControlCharacters(text: string): string {
  return text.replace(loneSurrogates, '\ufffd').replace(controlCharacters, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's utf8.RuneCountInString for a well-formed string: code points. */
export function runeCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** At most `max` runes: cut, ending in "…", when longer. */
export function cutToRunes(text: string, max: number): string {
  if (text.length <= max) return text;
  const runes = Array.from(text);
  return runes.length <= max ? text : `${runes.slice(0, max - 1).join('')}…`;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A command goes into a warning only as it is: escaping or cutting it would change what it does. */
export function fitsWarningAsIs(command: string): boolean {
  return withoutControlCharacters(command) === command && runeCount(command) <= maxWarningRunes;
}
