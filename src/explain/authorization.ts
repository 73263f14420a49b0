// Denied authorization questions in words, and the smallest grant that answers them yes. Three
// kinds of "no": no authorizer allowed it (RBAC's answer when no rule matches: a grant fixes it),
// an authorizer denied it outright (no RBAC grant can lift that), and the authorizer could not
// answer at all (a failed or refused SubjectAccessReview: nothing is suggested for a question
// nobody answered).

import type { AuthorizationFact } from '../admission/explanation.ts';
import { goQuote } from '../api/go-format.ts';
import { Decision } from '../ports/authorizer.ts';
import type { ClosestGrant, GrantFinder } from '../ports/grants.ts';
import { describeClosestGrant, describeQuestion, type Quote, shortQuote } from './describe.ts';
import { minimalGrants } from './grant.ts';
import { cutToRunes, fitsWarningAsIs, maxWarningRunes, runeCount, withoutControlCharacters } from './limits.ts';
import type { ExplanationPart } from './part.ts';
import { bindingSubject, describeRequester } from './subject.ts';

type Kind = 'missing' | 'denied' | 'error';

/** Closest grants looked up, at most: each is a walk over the requester's rules. */
const maxClosestGrantLookups = 4;

export function explainAuthorization(facts: readonly AuthorizationFact[], grants: GrantFinder | undefined): ExplanationPart {
  const distinct = distinctQuestions(facts);
  const user = distinct[0]?.attributes.user ?? {};
  const lines: string[] = [];
  const sentence = (fact: AuthorizationFact, quote: Quote): string => {
    const requester = describeRequester(user, quote);
    const question = describeQuestion(fact.attributes, quote);
    const { reason, error } = fact.answer;
    switch (kindOf(fact)) {
      case 'error':
        return `the authorizer could not answer whether ${requester} may ${question}: ${error}; no Role is suggested for an unanswered question`;
      case 'denied':
        return `an authorizer denied ${requester} ${question} outright${reason ? ` (${reason})` : ''}; no Role lifts a deny`;
      case 'missing':
        return `${requester} may not ${question}${reason ? ` (${reason})` : ''}`;
    }
  };

  const closest = new Map<AuthorizationFact, ClosestGrant>();
  let lookups = 0;
  for (const fact of distinct) {
    lines.push(sentence(fact, goQuote));
    if (kindOf(fact) !== 'missing' || grants === undefined || lookups >= maxClosestGrantLookups) continue;
    lookups += 1;
    const grant = grants.closestGrant(fact.attributes);
    if (grant === undefined) continue;
    closest.set(fact, grant);
    lines.push(`closest existing grant: ${describeClosestGrant(grant, fact.attributes)}`);
  }

  const missing = distinct.filter((fact) => kindOf(fact) === 'missing');
  const subject = bindingSubject(user);
  const suggested =
    missing.length > 0 && subject !== undefined
      ? minimalGrants(
          missing.map((f) => f.attributes),
          subject,
        )
      : [];
  if (missing.length > 0 && subject === undefined) lines.push('the request names no user or group to bind a Role to');
  if (suggested.length > 0)
    lines.push(
      `the smallest grant: ${suggested.map((g) => `${g.role.kind} ${goQuote(g.role.metadata.name)} and ${g.binding.kind} ${goQuote(g.binding.metadata.name)}`).join('; ')}`,
    );

  const warnings: string[] = [];
  const first = distinct[0];
  if (first !== undefined) {
    const more = distinct.length > 1 ? ` (and ${distinct.length - 1} more, all in the audit annotation)` : '';
    warnings.push(fitted((quote) => `${sentence(first, quote)}${more}`));
    const near = closest.get(first);
    if (near !== undefined)
      warnings.push(fitted((quote) => `closest existing grant: ${describeClosestGrant(near, first.attributes, quote)}`));
    // The commands for the first missing permission, when a warning can carry them as they are.
    const commands = suggested[0]?.commands;
    if (commands?.every(fitsWarningAsIs)) warnings.push(...commands);
  }

  return {
    lines,
    warnings,
    commands: suggested.flatMap((g) => g.commands ?? []),
    objects: suggested.flatMap((g) => [g.role, g.binding]),
  };
}

function kindOf(fact: AuthorizationFact): Kind {
  if (fact.answer.error !== undefined) return 'error';
  return fact.answer.decision === Decision.Deny ? 'denied' : 'missing';
}

/** The same question asked twice (an owner kind's REST mappings differ only in version) counts once. */
function distinctQuestions(facts: readonly AuthorizationFact[]): AuthorizationFact[] {
  const seen = new Set<string>();
  return facts.filter((fact) => {
    const r = fact.attributes.resourceAttributes;
    const n = fact.attributes.nonResourceAttributes;
    const key = JSON.stringify(
      r
        ? [kindOf(fact), r.verb, r.namespace ?? '', r.group ?? '', r.resource ?? '', r.subresource ?? '', r.name ?? '']
        : [kindOf(fact), n?.verb, n?.path],
    );
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The sentence whole when it fits a warning; else with long names shortened; else cut. */
function fitted(build: (quote: Quote) => string): string {
  const full = withoutControlCharacters(build(goQuote));
  if (runeCount(full) <= maxWarningRunes) return full;
  return cutToRunes(withoutControlCharacters(build(shortQuote(32))), maxWarningRunes);
}
