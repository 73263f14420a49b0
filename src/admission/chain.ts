// The ordered two-phase chain (upstream chainAdmissionHandler): the array's order is the order,
// mutating plugins run in `admit`, validating plugins in `validate`, and the first rejection of
// an enforcing plugin ends the phase. Plugins in warn or audit mode never reject: their
// rejection becomes a warning and/or an audit annotation, and the chain goes on. A plugin the
// request is exempt from is skipped, and the decision says by which rule.

import { internalError, isStatusError, type StatusError } from '../api/status-error.ts';
import type { Attributes, RequestContext } from './attributes.ts';
import type { Deadline } from './deadline.ts';
import { abortedError } from './errors.ts';
import { NamespaceReads, type PluginExemption } from './exemptions.ts';
import { type ExplainContext, type Explained, type Explainer, explanationOf } from './explanation.ts';
import { MutationScope } from './mutation-scope.ts';
import { type AdmissionPlugin, PluginMode } from './plugin.ts';

export interface ChainEntry {
  readonly plugin: AdmissionPlugin;
  readonly mode: PluginMode;
  /** Who and where this plugin does not act; none: it acts on every request it handles. */
  readonly exemption?: PluginExemption;
}

export type Phase = 'admit' | 'validate';

export interface PhaseOutcome {
  /** Set when an enforcing plugin rejected the request. */
  rejection?: StatusError;
  rejectedBy?: string;
  warnings: string[];
  annotations: Record<string, string>;
  /** Rejections by plugins in warn or audit mode, admitted anyway. */
  nonEnforced?: Array<{ plugin: string; mode: PluginMode }>;
  /** Rejections (enforced or not) whose plugin said why, explained: for the log line and the CLI. */
  explanations?: ExplainedRejection[];
  /** Plugins skipped because the request is exempt from them, each with the rule that matched. */
  exempted?: Array<{ plugin: string; rule: string }>;
}

export interface ExplainedRejection {
  readonly plugin: string;
  readonly mode: PluginMode;
  readonly explained: Explained;
}

export interface ChainOptions {
  /** Turns a rejection's facts into warnings and an audit annotation (none: rejections go unexplained). */
  explainer?: Explainer;
}

export class AdmissionChain {
  readonly entries: readonly ChainEntry[];
  /** What /mutate copies and diffs: where the mutating plugins say they write. */
  readonly mutationScope: MutationScope;
  /** Per non-enforcing mutating plugin, what to keep aside so its rejection leaves no change. */
  readonly #snapshotScopes = new Map<AdmissionPlugin, MutationScope>();
  readonly #explainer: Explainer | undefined;
  readonly #explainContext: ExplainContext;

  constructor(entries: readonly ChainEntry[], options: ChainOptions = {}) {
    this.entries = entries;
    const mutating = entries.filter((e) => e.plugin.admit);
    this.mutationScope = MutationScope.of(mutating.map((e) => e.plugin.mutates));
    this.#explainer = options.explainer;
    this.#explainContext = { mutatingPlugins: mutating.map((e) => e.plugin.name) };
    for (const { plugin, mode } of mutating) {
      if (mode !== PluginMode.Enforce) this.#snapshotScopes.set(plugin, MutationScope.of([plugin.mutates]));
    }
  }

  get mutatingPlugins(): string[] {
    return this.entries.filter((e) => e.plugin.admit).map((e) => e.plugin.name);
  }

  get validatingPlugins(): string[] {
    return this.entries.filter((e) => e.plugin.validate).map((e) => e.plugin.name);
  }

  /**
   * Runs every mutating plugin in order; attributes.object is changed in place. The deadline's
   * signal cannot fire while a plugin runs, so its expiresAt is checked before each plugin too; each
   * plugin is given the deadline itself.
   */
  admit(attributes: Attributes, deadline: Deadline): Promise<PhaseOutcome> {
    return this.#run('admit', attributes, deadline);
  }

  /** Runs every validating plugin in order, stopping at the first enforced rejection. */
  validate(attributes: Attributes, deadline: Deadline): Promise<PhaseOutcome> {
    return this.#run('validate', attributes, deadline);
  }

  async #run(phase: Phase, attributes: Attributes, deadline: Deadline): Promise<PhaseOutcome> {
    const { signal, expiresAt } = deadline;
    const outcome: PhaseOutcome = { warnings: [], annotations: {} };
    // Made only for a request that meets an exemption: most chains have none.
    let namespaceReads: NamespaceReads | undefined;
    for (const { plugin, mode, exemption } of this.entries) {
      const step = plugin[phase];
      if (!step || !plugin.handles(attributes.operation)) continue;
      // Before the deadline check: a namespace read that overran it is caught there.
      const rule = exemption === undefined ? undefined : await exemption.match(attributes, (namespaceReads ??= new NamespaceReads(signal)));
      if (rule !== undefined) {
        (outcome.exempted ??= []).push({ plugin: plugin.name, rule });
        outcome.annotations[annotationKey(plugin.name, 'exempted')] = rule;
        continue;
      }
      if (signal.aborted || performance.now() >= expiresAt) {
        outcome.rejection = abortedError(signal.aborted ? signal.reason : deadlineExceeded(), ` before plugin ${plugin.name} could run`);
        outcome.rejectedBy = plugin.name;
        return outcome;
      }
      // A non-enforcing mutating plugin that rejects must leave no half-made change behind.
      const snapshot = phase === 'admit' ? this.#snapshotScopes.get(plugin)?.copy(attributes.object) : undefined;
      try {
        await step.call(plugin, attributes, contextFor(plugin.name, outcome, deadline));
      } catch (thrown) {
        const error = pluginFailure(plugin.name, thrown);
        if (mode === PluginMode.Enforce) {
          outcome.rejection = error;
          outcome.rejectedBy = plugin.name;
          this.#explain(outcome, plugin.name, mode, error, expiresAt);
          return outcome;
        }
        if (snapshot !== undefined) attributes.object = snapshot;
        (outcome.nonEnforced ??= []).push({ plugin: plugin.name, mode });
        outcome.annotations[annotationKey(plugin.name, `${mode}-rejection`)] = error.message;
        if (mode === PluginMode.Warn) outcome.warnings.push(`[${plugin.name}] ${error.message}`);
        this.#explain(outcome, plugin.name, mode, error, expiresAt);
      }
    }
    return outcome;
  }

  /**
   * The explanation travels beside the rejection: warnings (not in audit mode) and one audit
   * annotation, never the message. Only a rejection that carries facts costs anything; a fault in
   * explaining never changes the answer, and a request already past its deadline is answered
   * without one rather than later still.
   */
  #explain(outcome: PhaseOutcome, pluginName: string, mode: PluginMode, error: StatusError, expiresAt: number): void {
    const explainer = this.#explainer;
    const explanation = explainer === undefined || performance.now() >= expiresAt ? undefined : explanationOf(error);
    if (explainer === undefined || explanation === undefined) return;
    let explained: Explained;
    try {
      explained = explainer.explain(explanation, this.#explainContext);
    } catch {
      return;
    }
    if (mode !== PluginMode.Audit) outcome.warnings.push(...explained.warnings);
    outcome.annotations[annotationKey(pluginName, 'explanation')] = explained.text;
    (outcome.explanations ??= []).push({ plugin: pluginName, mode, explained });
  }
}

function deadlineExceeded(): Error {
  return new DOMException('admission request deadline exceeded', 'TimeoutError');
}

function contextFor(pluginName: string, outcome: PhaseOutcome, deadline: Deadline): RequestContext {
  return {
    deadline,
    annotate: (key, value) => {
      outcome.annotations[annotationKey(pluginName, key)] = value;
    },
    warn: (message) => {
      outcome.warnings.push(message);
    },
  };
}

/**
 * kube-apiserver prefixes webhook audit annotation keys with "<webhook name>/", so ours must be a
 * qualified name's name part: we use "<plugin>.<key>".
 */
export function annotationKey(pluginName: string, key: string): string {
  return `${pluginName}.${key}`;
}

/** Anything that is not a StatusError is a bug in a plugin: a readable 500, never a crash. */
function pluginFailure(pluginName: string, thrown: unknown): StatusError {
  if (isStatusError(thrown)) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return internalError(`plugin ${pluginName} failed: ${message}`, thrown);
}
