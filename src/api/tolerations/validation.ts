// Upstream's core validation ValidateTolerations (pkg/apis/core/validation), with its messages:
// PodTolerationRestriction checks the tolerations of its configuration with it.
import { goQuote } from '../go-format.ts';
import { isLabelKey, isLabelValue } from '../label-validation.ts';
import { TaintEffect, type TolerationFields, TolerationOperator } from './toleration.ts';

/** One field.Error, rendered as Error() prints it: "<field>: <body>". */
export interface TolerationFieldError {
  field: string;
  message: string;
}

export function validateTolerations(tolerations: readonly TolerationFields[], path: string): TolerationFieldError[] {
  const errors: TolerationFieldError[] = [];
  const invalid = (field: string, badValue: string, detail: string) =>
    errors.push({ field, message: `${field}: Invalid value: ${badValue}: ${detail}` });
  const notSupported = (field: string, value: string, supported: readonly string[]) =>
    errors.push({
      field,
      message: `${field}: Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
    });

  tolerations.forEach((toleration, index) => {
    const at = `${path}[${index}]`;
    if (toleration.key !== '') for (const detail of isLabelKey(toleration.key)) invalid(`${at}.key`, goQuote(toleration.key), detail);
    // An empty key with Exists (and no value) means "every taint".
    if (toleration.key === '' && toleration.operator !== TolerationOperator.Exists) {
      invalid(
        `${at}.operator`,
        goQuote(toleration.operator),
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    }
    if (toleration.seconds !== undefined && toleration.effect !== TaintEffect.NoExecute) {
      invalid(`${at}.effect`, goQuote(toleration.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    switch (toleration.operator) {
      case TolerationOperator.Equal:
      case '': {
        const details = isLabelValue(toleration.value);
        if (details.length > 0) invalid(`${at}.operator`, goQuote(toleration.value), details.join(';'));
        break;
      }
      case TolerationOperator.Exists:
        if (toleration.value !== '')
          invalid(`${at}.operator`, internalTolerationJson(toleration), "value must be empty when `operator` is 'Exists'");
        break;
      default:
        notSupported(`${at}.operator`, toleration.operator, [TolerationOperator.Equal, TolerationOperator.Exists]);
    }
    if (toleration.effect !== '' && !Object.values(TaintEffect).includes(toleration.effect as never)) {
      notSupported(`${at}.effect`, toleration.effect, [TaintEffect.NoSchedule, TaintEffect.PreferNoSchedule, TaintEffect.NoExecute]);
    }
  });
  return errors;
}

/** json.Marshal of the internal core.Toleration (no JSON tags: Go field names, every field). */
function internalTolerationJson(toleration: TolerationFields): string {
  return JSON.stringify({
    Key: toleration.key,
    Operator: toleration.operator,
    Value: toleration.value,
    Effect: toleration.effect,
    TolerationSeconds: toleration.seconds ?? null,
  }).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
