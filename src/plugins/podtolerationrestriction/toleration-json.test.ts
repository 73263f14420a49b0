// Namespace annotation tolerations decoded with Go's encoding/json messages, as upstream's
// json.Unmarshal into []v1.Toleration reports them.
import { describe, expect, it } from 'vitest';
import { decodeTolerations } from './toleration-json.ts';

describe('decodeTolerations', () => {
  it.each([
    ['[]', []],
    ['null', []],
    [' [ null ] ', [{}]],
    [
      '[{"key":"a","operator":"Equal","value":"b","effect":"NoSchedule","tolerationSeconds":30}]',
      [{ key: 'a', operator: 'Equal', value: 'b', effect: 'NoSchedule', tolerationSeconds: 30 }],
    ],
    // Go matches field names case-insensitively (the Kelvin sign folds to K) and ignores unknown ones.
    ['[{"KEY":"a","Operator":"Exists","\u212aey":"b","unknown":{"deep":[1,[2]]}}]', [{ key: 'b', operator: 'Exists' }]],
    // A later duplicate wins; null leaves a string as it was and clears tolerationSeconds.
    ['[{"key":"a","key":"b","value":"v","value":null,"tolerationSeconds":5,"tolerationSeconds":null}]', [{ key: 'b', value: 'v' }]],
    ['[{"tolerationSeconds":-0}]', [{ tolerationSeconds: 0 }]],
  ])('%s', (text, expected) => {
    expect(decodeTolerations(text)).toEqual(expected);
  });

  it.each([
    ['', 'unexpected end of JSON input'],
    ['[', 'unexpected end of JSON input'],
    ['[{"key":"a"}', 'unexpected end of JSON input'],
    ['key: a', "invalid character 'k' looking for beginning of value"],
    ['[{key:"a"}]', "invalid character 'k' looking for beginning of object key string"],
    ['[{"key" "a"}]', `invalid character '"' after object key`],
    ['[{"key":"a" "b"}]', `invalid character '"' after object key:value pair`],
    ['[{"key":"a"} {}]', "invalid character '{' after array element"],
    ['[] x', "invalid character 'x' after top-level value"],
    ['[tru]', "invalid character ']' in literal true (expecting 'e')"],
    ['[nul]', "invalid character ']' in literal null (expecting 'l')"],
    ['[-]', "invalid character ']' in numeric literal"],
    ['[1.]', "invalid character ']' after decimal point in numeric literal"],
    ['[1e]', "invalid character ']' in exponent of numeric literal"],
    ['["\\x"]', "invalid character 'x' in string escape code"],
    ['["\\u12g4"]', "invalid character 'g' in \\u hexadecimal character escape"],
    ['["a\tb"]', "invalid character '\\t' in string literal"],
    ["['a']", "invalid character '\\'' looking for beginning of value"],
    ['[é]', "invalid character 'Ã' looking for beginning of value"],
    // Go names the offending byte as a rune: U+00A0's first UTF-8 byte is 0xC2, 'Â'.
    ['[\u00a0]', "invalid character 'Â' looking for beginning of value"],
    [`${'['.repeat(10_001)}${']'.repeat(10_001)}`, "invalid character '[' exceeded max depth"],
    ['{}', 'json: cannot unmarshal object into Go value of type []v1.Toleration'],
    ['"a"', 'json: cannot unmarshal string into Go value of type []v1.Toleration'],
    ['5', 'json: cannot unmarshal number into Go value of type []v1.Toleration'],
    ['true', 'json: cannot unmarshal bool into Go value of type []v1.Toleration'],
    ['["a"]', 'json: cannot unmarshal string into Go value of type v1.Toleration'],
    ['[[]]', 'json: cannot unmarshal array into Go value of type v1.Toleration'],
    ['[{"key":5}]', 'json: cannot unmarshal number into Go struct field Toleration.key of type string'],
    ['[{"operator":true}]', 'json: cannot unmarshal bool into Go struct field Toleration.operator of type v1.TolerationOperator'],
    ['[{"effect":{}}]', 'json: cannot unmarshal object into Go struct field Toleration.effect of type v1.TaintEffect'],
    ['[{"Value":[]}]', 'json: cannot unmarshal array into Go struct field Toleration.value of type string'],
    ['[{"tolerationSeconds":"30"}]', 'json: cannot unmarshal string into Go struct field Toleration.tolerationSeconds of type int64'],
    ['[{"tolerationSeconds":1.5}]', 'json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64'],
    ['[{"tolerationSeconds":1e3}]', 'json: cannot unmarshal number 1e3 into Go struct field Toleration.tolerationSeconds of type int64'],
    [
      '[{"tolerationSeconds":9223372036854775808}]',
      'json: cannot unmarshal number 9223372036854775808 into Go struct field Toleration.tolerationSeconds of type int64',
    ],
    // The first type error in document order is the one reported.
    ['[{"key":"a","value":1},{"key":2}]', 'json: cannot unmarshal number into Go struct field Toleration.value of type string'],
  ])('%j → %s', (text, message) => {
    expect(() => decodeTolerations(text)).toThrow(message);
  });
});
