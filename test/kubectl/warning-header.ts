// The Warning response headers kube-apiserver sends for admission warnings, as its warning recorder
// (k8s.io/apiserver pkg/endpoints/filters/warning.go) writes them, so the suite sees what kubectl
// would: each text once; a text with a control character (or not valid UTF-8) dropped, as
// NewWarningHeader refuses it; up to 4096 runes in all whole, then every warning cut to 256 runes
// and, once 4096 runes are written again, the rest dropped. Admission warnings have no agent ("-").
export interface WarningLimits {
  totalRunes: number;
  itemRunes: number;
}

export const kubeApiserverWarningLimits: WarningLimits = { totalRunes: 4 * 1024, itemRunes: 256 };

const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export class WarningRecorder {
  readonly #limits: WarningLimits;
  readonly #recorded = new Set<string>();
  readonly #ordered: Array<{ agent: string; text: string }> = [];
  #written = 0;
  #truncating = false;
  #headers: string[] = [];

  constructor(limits: WarningLimits = kubeApiserverWarningLimits) {
    this.#limits = limits;
  }

  add(agent: string, text: string): void {
    if (text.length === 0) return;
    if (this.#written >= this.#limits.totalRunes && this.#truncating) return;
    if (this.#recorded.has(text)) return;
    this.#recorded.add(text);
    this.#ordered.push({ agent, text });
    let item = text;
    if (this.#truncating) item = this.#cut(item);
    const header = warningHeader(agent, item);
    if (header === undefined) return;
    const runes = [...item].length;
    if (this.#written + runes <= this.#limits.totalRunes || this.#truncating) {
      this.#written += runes;
      this.#headers.push(header);
      return;
    }
    // Over the limit: from now on every warning is cut, the ones already written included.
    this.#truncating = true;
    this.#written = 0;
    this.#headers = [];
    for (const earlier of this.#ordered) {
      const cut = this.#cut(earlier.text);
      const replayed = warningHeader(earlier.agent, cut);
      if (replayed === undefined) continue;
      this.#written += [...cut].length;
      this.#headers.push(replayed);
    }
  }

  headers(): string[] {
    return [...this.#headers];
  }

  #cut(text: string): string {
    const runes = [...text];
    return runes.length > this.#limits.itemRunes ? runes.slice(0, this.#limits.itemRunes).join('') : text;
  }
}

/** apimachinery's NewWarningHeader(299, agent, text), or undefined where it returns an error. */
function warningHeader(agent: string, text: string): string | undefined {
  if (agent !== '' && (/[\\" ]/.test(agent) || controlCharacter.test(agent) || loneSurrogate.test(agent))) return undefined;
  if (controlCharacter.test(text) || loneSurrogate.test(text)) return undefined;
  return `299 ${agent === '' ? '-' : agent} "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The Warning header for a request's admission warnings, or undefined when none survives. */
export function admissionWarningHeader(warnings: readonly string[]): string | undefined {
  const recorder = new WarningRecorder();
  for (const text of warnings) recorder.add('', text);
  const headers = recorder.headers();
  return headers.length === 0 ? undefined : headers.join(', ');
}
