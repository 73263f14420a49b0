// --authorizer=rbac-mirror: every question is first put to the RBAC mirror; its "allow" is final,
// because in a cluster whose authorizers are RBAC plus others that can only allow (Node, a webhook
// that never denies), an RBAC allow is what kube-apiserver's chain answers too. Anything else — RBAC
// does not allow, or the mirror is not in sync — goes to the SubjectAccessReview authorizer exactly
// as with --authorizer=sar (its cache, singleflight, deadlines and per-request review limit), since
// another authorizer may still allow. RBAC never denies, so nothing the mirror says can take an
// allow away.
import type { KubeConfig } from '@kubernetes/client-node';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../../ports/authorizer.ts';
import type { GrantFinder } from '../../../ports/grants.ts';
import { createRbacInformers, type RbacInformerRecorder, type RbacInformersOptions } from './rbac-informers.ts';
import { createRbacMirror, type RbacMirror, type RbacMirrorOptions, type RbacMirrorState } from './rbac-mirror.ts';

export const answeredBySubjectAccessReview = 'subjectaccessreview';

/** Observations for metrics; the wiring adapts them to Prometheus (no prom-client here). */
export interface RbacMirrorRecorder extends RbacInformerRecorder {
  /** Called once: the state the mirror's gauges read at scrape time. */
  track?(state: RbacMirrorState): void;
  /** One per question: answered by the mirror, or sent to SubjectAccessReview and why. */
  question?(outcome: 'allowed' | 'not-allowed' | 'not-synced'): void;
  rebuilt?(observation: { durationSeconds: number }): void;
}

/** The mirror in front of the SubjectAccessReview authorizer. */
export function mirrorFirst(mirror: Pick<RbacMirror, 'evaluate'>, fallback: Authorizer, recorder: RbacMirrorRecorder = {}): Authorizer {
  return {
    async authorize(attributes: AuthorizationAttributes, signal?: AbortSignal): Promise<AuthorizationResult> {
      const verdict = mirror.evaluate(attributes);
      if (typeof verdict === 'object') {
        recorder.question?.('allowed');
        return verdict.allowed;
      }
      recorder.question?.(verdict);
      return { ...(await fallback.authorize(attributes, signal)), answeredBy: answeredBySubjectAccessReview };
    },
  };
}

export interface RbacMirrorAuthorizerOptions extends Omit<RbacInformersOptions, 'recorder' | 'onChange'> {
  kubeConfig: KubeConfig;
  /** The SubjectAccessReview authorizer every question the mirror does not allow goes to. */
  fallback: Authorizer;
  recorder?: RbacMirrorRecorder;
  /** When the mirror rebuilds its evaluator after changes (rbac-mirror.ts; the defaults suit a cluster). */
  rebuild?: Pick<RbacMirrorOptions, 'rebuildQuietMs' | 'rebuildMaxDelayMs' | 'rebuildMinIntervalMs'>;
}

export interface RbacMirrorAuthorizer extends Authorizer {
  readonly mirror: RbacMirror;
  /** The nearest grants the mirror knows, for explaining denials (none while it is not in sync). */
  readonly grants: GrantFinder;
  /** Resolves when the four caches have listed and the mirror has built its evaluator from them. */
  ready(): Promise<void>;
  notReadyReasons(): string[];
  /** Stops the informers (the fallback is closed by whoever made it). */
  close(): Promise<void>;
}

export function createRbacMirrorAuthorizer(options: RbacMirrorAuthorizerOptions): RbacMirrorAuthorizer {
  const { fallback, recorder = {}, rebuild = {}, ...informerOptions } = options;
  let mirror: RbacMirror | undefined;
  const informers = createRbacInformers({ ...informerOptions, recorder, onChange: () => mirror?.invalidate() });
  mirror = createRbacMirror({
    informers,
    ...rebuild,
    ...(informerOptions.clock ? { clock: informerOptions.clock } : {}),
    ...(recorder.rebuilt ? { rebuilt: (observation) => recorder.rebuilt?.(observation) } : {}),
  });
  recorder.track?.(mirror);
  const authorizer = mirrorFirst(mirror, fallback, recorder);
  return {
    mirror,
    grants: { closestGrant: (attributes) => mirror.closestGrant(attributes) },
    authorize: authorizer.authorize,
    ready: async () => {
      await informers.ready();
      await mirror.whenBuilt();
    },
    notReadyReasons: () => {
      const reasons = informers.notReadyReasons();
      return reasons.length === 0 && !mirror.built ? ['the RBAC mirror has not built its evaluator yet'] : reasons;
    },
    close: () => informers.close(),
  };
}
