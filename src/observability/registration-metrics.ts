// Whether the webhook configurations the chart installs are registered as it asked: one series per
// configuration the enabled plugins use, 1 while it exists and holds the chart's webhooks (with the
// CA bundle managed here), 0 otherwise. Every replica reads the same two objects, so their series
// agree but for the few seconds between passes.
import { Gauge, type Registry } from 'prom-client';
import type { ConfigurationKind } from '../ports/webhook-configuration-store.ts';
import type { RegistrationRecorder } from '../registration/status.ts';

export function registrationRecorder(registry: Registry): RegistrationRecorder {
  const gauge = new Gauge({
    name: 'admission_chain_webhook_configuration_registered',
    help: 'Whether the webhook configuration of this kind exists and holds the webhooks the chart asked for (1) or not (0), per configuration the enabled plugins use.',
    labelNames: ['kind'],
    registers: [registry],
  });
  return { registered: (kind: ConfigurationKind, registered: boolean) => gauge.set({ kind }, registered ? 1 : 0) };
}
