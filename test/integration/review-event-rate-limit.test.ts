// EventRateLimit through `review --admission-control-config-file`, as a self-managed cluster's files
// configure it. One review is one request in a fresh process, so its buckets start full: the first
// request of every TestEventRateLimiting row (src/plugins/eventratelimit/testdata) is what a review can
// show, with the row's limits; the rows' later requests need buckets that outlive a request, and run
// through the plugin (index.test.ts) and against a real kube-apiserver (test/control-plane). Then
// every TestValidateConfiguration row through the file: a bad configuration stops the command.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventRateLimitingCases, limitsOf, validateConfigurationCases } from '../../src/plugins/eventratelimit/testdata/upstream-cases.ts';
import { runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const { write } = scratchFiles('review-event-rate-limit');
const apiVersion = 'eventratelimit.admission.k8s.io/v1alpha1';
const state = write('state.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'A' } }));

function admissionFile(name: string, limits: unknown): string {
  const path = write(
    `${name}-eventconfig.yaml`,
    stringify({ apiVersion, kind: 'Configuration', ...(limits === undefined ? {} : { limits }) }),
  );
  return write(
    `${name}-admission.yaml`,
    stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'EventRateLimit', path }] }),
  );
}

async function review(request: Record<string, unknown>, configFile: string) {
  const body = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'row', operation: 'CREATE', userInfo: { username: 'admin' }, ...request },
  };
  const args = ['review', '-', '--cluster-state', state, '--plugins', 'EventRateLimit', '--admission-control-config-file', configFile];
  return runMain(args, { stdin: JSON.stringify(body) });
}

const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, '-');

// Upstream's two rows with no limit at all ("event from other user not blocked", "events from other
// user should not count against limit") build the plugin directly; from a file, no limit is a
// configuration kube-apiserver refuses (the last test below), so they are left out here.
describe('TestEventRateLimiting through review: each row’s first request', () => {
  it.each(eventRateLimitingCases.filter((row) => limitsOf(row).length > 0))('$name', async (row) => {
    const first = row.requests[0]!;
    const { code, stdout, stderr } = await review(
      {
        kind: { group: '', version: 'v1', kind: first.kind },
        resource: { group: '', version: 'v1', resource: 'events' },
        namespace: first.namespace ?? '',
        name: 'name',
        userInfo: { username: first.username ?? '' },
        dryRun: first.dryRun ?? false,
        ...(first.event === undefined ? {} : { object: { apiVersion: 'v1', kind: 'Event', ...first.event } }),
      },
      admissionFile(slug(row.name), limitsOf(row)),
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout).response.allowed).toBe(first.accepted);
  });
});

const supported = 'supported values: "Server", "Namespace", "User", "SourceAndObject"';
/** What ValidateConfiguration says of each invalid row. */
const upstreamErrors: Record<string, string> = {
  'missing limits': 'limits: Invalid value: null: must not be empty',
  'missing type': `limits[0].type: Unsupported value: "": ${supported}`,
  'invalid type': `limits[0].type: Unsupported value: "unknown-type": ${supported}`,
  'missing burst': 'limits[0].burst: Invalid value: 0: must be positive',
  'missing qps': 'limits[0].qps: Invalid value: 0: must be positive',
  'negative cache size': 'limits[0].cacheSize: Invalid value: -1: must not be negative',
};

describe('TestValidateConfiguration through the AdmissionConfiguration file', () => {
  it.each(validateConfigurationCases)('$name', async ({ name, limits, valid }) => {
    const event = {
      kind: { group: '', version: 'v1', kind: 'Event' },
      resource: { group: '', version: 'v1', resource: 'events' },
      namespace: 'A',
    };
    const { code, stderr } = await review(event, admissionFile(slug(name), limits));
    if (valid) expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    else {
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /^admission-chain: \S+eventconfig\.yaml \(plugins\[0\]\.path in \S+admission\.yaml\): plugin EventRateLimit: /,
      );
      expect(stderr.slice(stderr.indexOf('plugin EventRateLimit: ') + 'plugin EventRateLimit: '.length)).toBe(`${upstreamErrors[name]}\n`);
    }
  });

  it('with the plugin on and no section for it, review refuses to start, as kube-apiserver does', async () => {
    const empty = write(
      'empty-admission.yaml',
      stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [] }),
    );
    const { code, stderr } = await review(
      { kind: { group: '', version: 'v1', kind: 'Event' }, resource: { group: '', version: 'v1', resource: 'events' } },
      empty,
    );
    expect(code).toBe(2);
    expect(stderr).toContain('admission plugin EventRateLimit needs a configuration');
    expect(stderr).toContain('limits: Invalid value: null: must not be empty');
  });
});
