// The capability interface every plugin implements (upstream admission.Interface,
// MutationInterface and ValidationInterface, folded into optional methods).

import type { Lookups, Ports } from '../ports/index.ts';
import type { Attributes, RequestContext } from './attributes.ts';
import type { MutationPath } from './mutation-scope.ts';
import type { Operation } from './operation.ts';

export interface AdmissionPlugin {
  readonly name: string;
  /** Whether the plugin wants requests of this operation at all. */
  handles(operation: Operation): boolean;
  /** Mutating phase: change attributes.object in place, or throw a StatusError to reject. */
  admit?(attributes: Attributes, context: RequestContext): void | Promise<void>;
  /**
   * Where admit may change the object (object keys from the root): only these are copied and
   * diffed for /mutate. A plugin that leaves this out has the whole object copied and compared.
   */
  readonly mutates?: readonly MutationPath[];
  /** Validating phase: throw a StatusError to reject; never mutate. */
  validate?(attributes: Attributes, context: RequestContext): void | Promise<void>;
}

/** The ports a plugin may need besides the logger, clock and random source every plugin gets. */
export type Need = 'authorizer' | 'restMapper' | 'lookups' | 'featureGates' | 'imageReview';

/** The ports a plugin's factory is given: those it needs are there (start-up checks, once). */
export type PortsWith<N extends Need> = Ports & Required<Pick<Ports, N>>;

/** A plugin as the ordered list knows it: its name, what it needs, and a factory typed on those needs. */
export interface PluginDefinition<N extends Need = Need> {
  readonly name: string;
  /** The ports the plugin cannot work without; start-up fails clearly when one is missing. */
  readonly needs: readonly N[];
  /** Which lookups the plugin reads, so the cluster backend runs only those caches. */
  readonly lookups?: readonly (keyof Lookups)[];
  create(ports: PortsWith<N>): AdmissionPlugin;
}

/**
 * Builds a plugin after checking, once, that the ports it needs are there: the only check, so no
 * factory checks again. `provider` names where the ports came from (the backend), for the error.
 */
export function createPlugin<N extends Need>(definition: PluginDefinition<N>, ports: Ports, provider: string): AdmissionPlugin {
  for (const need of definition.needs) {
    if (ports[need] === undefined)
      throw new Error(`admission plugin ${definition.name} needs a ${need}, which the ${provider} backend does not provide`);
  }
  return definition.create(ports as PortsWith<N>);
}

/** How a plugin's rejection is treated: deny, admit with a warning, or admit with an audit note. */
export const PluginMode = {
  Enforce: 'enforce',
  Warn: 'warn',
  Audit: 'audit',
} as const;
export type PluginMode = (typeof PluginMode)[keyof typeof PluginMode];

export function isPluginMode(value: string): value is PluginMode {
  return (Object.values(PluginMode) as string[]).includes(value);
}
