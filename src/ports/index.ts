// Everything a plugin may have injected. Optional ports are filled in at start-up by the wiring
// for the chosen backend (cluster or local); a plugin that needs a missing one fails start-up.
import type { Authorizer } from './authorizer.ts';
import type { Clock, Random } from './clock.ts';
import type { FeatureGates } from './feature-gates.ts';
import type { ImageReviewClients } from './image-review.ts';
import type { Logger } from './logger.ts';
import type { Lookups } from './lookups.ts';
import type { PluginConfigurations } from './plugin-configuration.ts';
import type { PluginRecorders } from './recorders.ts';
import type { RestMapper } from './rest-mapper.ts';

export interface Ports {
  logger: Logger;
  clock: Clock;
  random: Random;
  authorizer?: Authorizer;
  restMapper?: RestMapper;
  lookups?: Lookups;
  /** kube-apiserver's feature gates, as the cluster's version (or --feature-gates) sets them. */
  featureGates?: FeatureGates;
  /** The --admission-control-config-file sections, for the plugins that take a configuration. */
  configuration?: PluginConfigurations;
  /** What plugins observe of their own decisions, for metrics (serve); none offline. */
  recorders?: PluginRecorders;
  /** ImageReview backends reached through a kubeconfig file (ImagePolicyWebhook), for serve and review alike. */
  imageReview?: ImageReviewClients;
}

export type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from './authorizer.ts';
export type { Clock, Random } from './clock.ts';
export type { FeatureGateOverrides, FeatureGates } from './feature-gates.ts';
export type { ImageReviewClient, ImageReviewClients, ImageReviewResponse } from './image-review.ts';
export type { Logger } from './logger.ts';
export type { Lookups, Namespace, Node, ResourceLookup } from './lookups.ts';
export type { PluginConfiguration, PluginConfigurations } from './plugin-configuration.ts';
export type { EventRateLimitRecorder, PluginRecorders } from './recorders.ts';
export type { RestMapper, RestMapping, RestScope } from './rest-mapper.ts';
