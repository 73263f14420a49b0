// A `serve` config for tests, through the real flag parser: loopback, port 0, short deadlines.
import { parseServeConfig, type RawServeOptions, type ServeConfig } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';

export function testServeConfig(
  options: Partial<RawServeOptions> & Pick<RawServeOptions, 'tlsCertFile' | 'tlsPrivateKeyFile'>,
): ServeConfig {
  return parseServeConfig(
    {
      bindAddress: '127.0.0.1',
      port: '0',
      metricsPort: '0',
      logLevel: 'error',
      requestTimeout: '5s',
      shutdownDelay: '0s',
      drainTimeout: '2s',
      sarAllowedTtl: '10s',
      sarDeniedTtl: '10s',
      discoveryRefreshInterval: '30s',
      maxRequestBodyBytes: String(7 * 1024 * 1024),
      maxInFlightBytes: String(160 * 1024 * 1024),
      maxConnections: '500',
      maxSubjectAccessReviewsPerRequest: '100',
      ...options,
    },
    orderedPlugins,
    defaultEnabledPlugins,
  );
}
