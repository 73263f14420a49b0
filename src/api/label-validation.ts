// apimachinery's label key and value checks with their exact messages: IsQualifiedName and
// IsValidLabelValue (util/validation; label-selector requirements in a SubjectAccessReview), and
// their newer wording IsLabelKey and IsLabelValue (api/validate/content; label selectors in
// namespace annotations, toleration keys). The two differ only in how a key with more than one '/'
// is named.

const keyCharFmt = '[A-Za-z0-9]';
const keyExtCharFmt = '[-A-Za-z0-9_.]';
const labelKeyFmt = `(${keyCharFmt}${keyExtCharFmt}*)?${keyCharFmt}`;
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyMaxLength = 63;
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMaxLength = 63;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainMaxLength = 253;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

/** validation.RegexError. */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

const emptyError = 'must be non-empty';
const maxLenError = (length: number) => `must be no more than ${length} characters`;

const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);

export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (value.length > dns1123SubdomainMaxLength) errors.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) errors.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errors;
}

/** A DNS-1123 label (namespace names): syntax only, for service-account usernames. */
export function isDNS1123Label(value: string): boolean {
  return value.length <= 63 && dns1123LabelRegexp.test(value);
}

/** IsLabelKey: an optional DNS-subdomain prefix and a name of at most 63 characters. */
export function isLabelKey(value: string): string[] {
  return qualifiedName(value, 'a valid label key');
}

/** IsQualifiedName: IsLabelKey in util/validation's older wording. */
export function isQualifiedName(value: string): string[] {
  return qualifiedName(value, 'a qualified name');
}

function qualifiedName(value: string, what: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errors.push(`prefix part ${emptyError}`);
    else for (const message of isDNS1123Subdomain(prefix)) errors.push(`prefix part ${message}`);
  } else {
    return [
      `${what} ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push(`name part ${emptyError}`);
  else if (name.length > labelKeyMaxLength) errors.push(`name part ${maxLenError(labelKeyMaxLength)}`);
  if (!labelKeyRegexp.test(name)) errors.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

/** IsLabelValue (IsValidLabelValue): empty, or at most 63 alphanumerics, '-', '_' and '.', starting and ending alphanumeric. */
export function isLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (value.length > labelValueMaxLength) errors.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) errors.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errors;
}
