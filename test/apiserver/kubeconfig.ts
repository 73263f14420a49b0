// The kubeconfig a client uses to reach the stand-in: its CA inline and a bearer token, exactly
// the shape `kubectl config view --raw` prints.
import { stringify } from 'yaml';

export function kubeconfigYaml(options: { server: string; caCert: string; token: string }): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'stand-in',
        cluster: { server: options.server, 'certificate-authority-data': Buffer.from(options.caCert).toString('base64') },
      },
    ],
    users: [{ name: 'stand-in-admin', user: { token: options.token } }],
    contexts: [{ name: 'stand-in', context: { cluster: 'stand-in', user: 'stand-in-admin' } }],
    'current-context': 'stand-in',
  });
}
