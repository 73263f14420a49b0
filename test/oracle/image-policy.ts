// ImagePolicyWebhook's backend in the oracle's world: one real HTTPS ImageReview backend, asked by the
// in-tree plugin and by our webhook through the same kubeconfig file, with a policy that only the
// generator's ImagePolicyWebhook cases meet: an image under a `blocked/` path is refused, unless the
// pod carries a break-glass ticket among the annotations the plugin shows the backend. The reviews
// it was sent are kept, for the sample to check what the plugins showed it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ImageReviewJson,
  type ReviewService,
  startTestBackend,
  testCertificates,
  writeKubeConfig,
} from '../support/image-review-backend.ts';

/** The annotation that lets a pod run blocked images: its key has the `.image-policy.k8s.io/` the plugin forwards. */
export const breakGlassAnnotation = 'break-glass.image-policy.k8s.io/ticket';
/** The same words without the dot: the plugin does not forward it, so it lets nothing through. */
export const unforwardedAnnotation = 'image-policy.k8s.io/ticket';
export const blockedImages = ['registry.example/blocked/miner:1', `registry.example/blocked/tool@sha256:${'c'.repeat(64)}`];

/** The policy: blocked images refused, each named, unless there is a ticket. */
export class OraclePolicy implements ReviewService {
  readonly received: ImageReviewJson[] = [];

  review(review: ImageReviewJson): void {
    const blocked = (review.spec.containers ?? []).map((c) => c.image ?? '').filter((image) => image.includes('/blocked/'));
    const ticket = review.spec.annotations?.[breakGlassAnnotation];
    review.status.allowed = blocked.length === 0 || (ticket !== undefined && ticket !== '');
    if (!review.status.allowed) review.status.reason = `blocked: ${blocked.join(', ')}`;
    review.status.auditAnnotations = { decision: review.status.allowed ? 'allowed' : 'blocked' };
  }

  httpStatusCode(): number {
    return 200;
  }
}

export interface OracleImagePolicyBackend {
  /** The kubeconfig file both servers' plugin reads. */
  kubeConfigFile: string;
  policy: OraclePolicy;
  close(): Promise<void>;
}

/** The backend on loopback, its kubeconfig written into `dir` (the servers' scratch folder, removed with them). */
export async function startImagePolicyBackend(dir: string): Promise<OracleImagePolicyBackend> {
  const certs = await testCertificates();
  const policy = new OraclePolicy();
  const backend = await startTestBackend(policy, { cert: certs.server, clientCA: certs.ca.cert });
  const files = {
    dir,
    write: (name: string, content: string) => {
      const path = join(dir, `image-policy-${name}`);
      writeFileSync(path, content);
      return path;
    },
  };
  const kubeConfigFile = writeKubeConfig(files, { server: backend.url, ca: certs.ca.cert, clientCert: certs.client });
  return { kubeConfigFile, policy, close: () => backend.close() };
}

/** The chart's AdmissionConfiguration with the kubeconfig path the pod would mount pointed at this host's file. */
export function withKubeConfigFile(admissionConfiguration: string, kubeConfigFile: string): string {
  const mounted = /kubeConfigFile: "([^"]+)"/.exec(admissionConfiguration);
  if (mounted === null) throw new Error('the rendered AdmissionConfiguration has no imagePolicy.kubeConfigFile');
  return admissionConfiguration.replace(mounted[0], `kubeConfigFile: ${JSON.stringify(kubeConfigFile)}`);
}
