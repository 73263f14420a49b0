// One rejection's facts (src/admission/explanation.ts) in the three forms users meet them: a few
// warnings kubectl prints beside the error, the full remedy as YAML for the audit annotation and the
// log line, and the objects themselves for `admission-chain explain --apply-to`.
import { stringify } from 'yaml';
import { type AuthorizationFact, type Explainer, FactType } from '../admission/explanation.ts';
import type { KubeObject } from '../api/types.ts';
import type { GrantFinder } from '../ports/grants.ts';
import { explainAuthorization } from './authorization.ts';
import { maxAnnotationBytes, maxWarningsPerExplanation, utf8Bytes, withoutControlCharacters } from './limits.ts';
import type { ExplanationPart } from './part.ts';
import { remedyFor } from './remedies.ts';

export type { ExplainContext, Explained, Explainer } from '../admission/explanation.ts';

export interface ExplainerOptions {
  /** The requester's nearest existing grants, where RBAC objects are at hand (the local backend). */
  grants?: GrantFinder;
}

export function createExplainer(options: ExplainerOptions = {}): Explainer {
  return {
    explain(explanation, context) {
      const parts: ExplanationPart[] = [];
      const authorization = explanation.facts.filter((f): f is AuthorizationFact => f.type === FactType.Authorization);
      let authorizationExplained = false;
      for (const fact of explanation.facts) {
        if (fact.type !== FactType.Authorization) {
          parts.push(remedyFor(fact, context));
        } else if (!authorizationExplained) {
          // All the questions together, where the first of them came: one grant answers them all.
          parts.push(explainAuthorization(authorization, options.grants));
          authorizationExplained = true;
        }
      }
      const lines = parts.flatMap((p) => p.lines);
      if (explanation.incomplete)
        lines.push('more may be missing: the plugin stopped asking after its first answers (a bound on questions or time)');
      const objects = parts.flatMap((p) => p.objects);
      return {
        lines,
        warnings: parts.flatMap((p) => p.warnings).slice(0, maxWarningsPerExplanation),
        commands: parts.flatMap((p) => p.commands),
        objects,
        text: explanationText(lines, objects),
      };
    },
  };
}

/** Comments first, then as many whole objects as fit; what was left out is said. */
export function explanationText(lines: readonly string[], objects: readonly KubeObject[]): string {
  let text = lines.map((line) => `# ${withoutControlCharacters(line)}\n`).join('');
  if (utf8Bytes(text) > maxAnnotationBytes) text = `${cutToBytes(text, maxAnnotationBytes - 64)}\n# …\n`;
  const documents = objects.map((object) => stringify(object));
  for (const [i, document] of documents.entries()) {
    const next = `${i === 0 ? '' : '---\n'}${document}`;
    const left = documents.length - i;
    // Room is kept for the line that says how many objects were left out.
    if (utf8Bytes(text) + utf8Bytes(next) > maxAnnotationBytes - 96) {
      return `${text}# … ${left} more object${left > 1 ? 's' : ''}: run admission-chain explain for the whole remedy\n`;
    }
    text += next;
  }
  return text;
}

function cutToBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8').subarray(0, bytes);
  // A cut inside a multi-byte character decodes to U+FFFD at the end; drop it.
  return buffer.toString('utf8').replace(/\ufffd$/, '');
}
