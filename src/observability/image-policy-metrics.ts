// ImagePolicyWebhook's questions and its backend's health: how many answers the cache gives, how many
// the backend gives and how many it could not (each one a pod denied, or admitted failed-open), and
// every attempt on the wire by status class, so a backend answering 500s shows before pods fail.
import { Counter, type Registry } from 'prom-client';
import type { ImagePolicyWebhookRecorder } from '../ports/recorders.ts';

const sources = ['cache', 'backend'] as const;
const outcomes = ['allowed', 'denied', 'error'] as const;
const codes = ['2xx', '3xx', '4xx', '5xx', 'none'] as const;

export function imagePolicyWebhookRecorder(registry: Registry): ImagePolicyWebhookRecorder {
  const reviews = new Counter({
    name: 'admission_chain_image_policy_reviews_total',
    help: "ImagePolicyWebhook's questions about a pod's images, by where the answer came from and what it was (error: the backend could not answer).",
    labelNames: ['source', 'outcome'],
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'admission_chain_image_policy_backend_requests_total',
    help: 'ImageReview requests sent to the backend, retries included, by HTTP status class (none: no response).',
    labelNames: ['code'],
    registers: [registry],
  });
  // Present at zero from the start (a cache answers only allowed or denied), so rates are defined early.
  for (const source of sources)
    for (const outcome of outcomes) if (source === 'backend' || outcome !== 'error') reviews.inc({ source, outcome }, 0);
  for (const code of codes) attempts.inc({ code }, 0);
  return {
    reviewed: ({ source, outcome }) => reviews.inc({ source, outcome }),
    attemptCompleted: ({ code }) => attempts.inc({ code }),
  };
}
