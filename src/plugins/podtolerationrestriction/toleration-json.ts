// A namespace annotation's tolerations decoded as upstream decodes them (encoding/json into
// []v1.Toleration): Go's syntax errors, Go's type errors in document order, field names matched
// case-insensitively, unknown fields ignored. The error text is what kube-apiserver answers with.
import type { Toleration } from '../../api/core.ts';
import { foldName, GoJsonReader, type JsonKind } from '../../util/go-json-reader.ts';
import { goJsonSyntaxError } from '../../util/go-json-syntax.ts';

export class TolerationJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TolerationJsonError';
  }
}

type StringField = 'key' | 'operator' | 'value' | 'effect';

/** v1.Toleration's fields: JSON name → Go type name, as UnmarshalTypeError prints it. */
const fields: Record<StringField | 'tolerationSeconds', string> = {
  key: 'string',
  operator: 'v1.TolerationOperator',
  value: 'string',
  effect: 'v1.TaintEffect',
  tolerationSeconds: 'int64',
};
const fieldsByFold = new Map(Object.keys(fields).map((name) => [foldName(name), name as keyof typeof fields]));

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** The tolerations, or [] for JSON null (upstream then has an empty, non-nil list). Throws TolerationJsonError. */
export function decodeTolerations(text: string): Toleration[] {
  const syntaxError = goJsonSyntaxError(text);
  if (syntaxError !== undefined) throw new TolerationJsonError(syntaxError);

  const reader = new GoJsonReader(text);
  let firstError: string | undefined;
  const typeError = (kind: JsonKind | string, target: string, field?: string) => {
    firstError ??= `json: cannot unmarshal ${kind === 'bool' ? 'bool' : kind} into Go ${field === undefined ? 'value' : `struct field Toleration.${field}`} of type ${target}`;
  };

  const tolerations: Toleration[] = [];
  const top = reader.peek();
  if (top === 'null') return [];
  if (top !== 'array') {
    typeError(top, '[]v1.Toleration');
    throw new TolerationJsonError(firstError!);
  }
  reader.readArray(() => {
    const kind = reader.peek();
    if (kind === 'null') {
      reader.skip();
      tolerations.push({});
      return;
    }
    if (kind !== 'object') {
      typeError(kind, 'v1.Toleration');
      reader.skip();
      return;
    }
    const toleration: Toleration = {};
    reader.readObject((name) => {
      const field = (Object.hasOwn(fields, name) ? name : fieldsByFold.get(foldName(name))) as keyof typeof fields | undefined;
      const kind = reader.peek();
      if (field === undefined) return reader.skip();
      if (kind === 'null') {
        reader.skip();
        // null leaves a string as it was and makes a pointer nil.
        if (field === 'tolerationSeconds') delete toleration.tolerationSeconds;
        return;
      }
      if (field === 'tolerationSeconds') {
        if (kind !== 'number') {
          typeError(kind, 'int64', field);
          return reader.skip();
        }
        const literal = reader.readNumber();
        const seconds = /^-?\d+$/.test(literal) ? BigInt(literal) : undefined;
        if (seconds === undefined || seconds < int64Min || seconds > int64Max) typeError(`number ${literal}`, 'int64', field);
        else toleration.tolerationSeconds = Number(seconds);
        return;
      }
      if (kind !== 'string') {
        typeError(kind, fields[field], field);
        return reader.skip();
      }
      toleration[field] = reader.readString();
    });
    tolerations.push(toleration);
  });
  if (firstError !== undefined) throw new TolerationJsonError(firstError);
  return tolerations;
}
