// Go's strconv.ParseBool, which decides whether the enforce-mountable-secrets annotation is on:
// anything it does not accept is an error, and upstream treats an error as "off".

const trueValues = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const falseValues = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The parsed value, or undefined where Go's ParseBool would return an error. */
export function parseGoBool(value: string): boolean | undefined {
  if (trueValues.has(value)) return true;
  if (falseValues.has(value)) return false;
  return undefined;
}
