// ImagePolicyWebhook through the real kubectl against a real kube-apiserver calling our webhook, with
// the chart's own AdmissionConfiguration; and the same settings given to a second kube-apiserver that
// runs the in-tree plugin, the referee. Each server has an ImageReview backend of its own (upstream's
// mock: "good" first is allowed, any "bad" denied), real HTTPS with client certificates, reached
// through a kubeconfig file; each server's backend records the reviews it was sent, and the two must
// match. defaultAllow is on, so a failing backend admits the pod; upstream's mark on it never reaches
// the stored pod, ours does.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { repoRoot } from '../deploy/tools.ts';
import { type KubectlResult, runKubectl } from '../kubectl/kubectl.ts';
import { MockService, startTestBackend, type TestBackend, testCertificates, writeKubeConfig } from '../support/image-review-backend.ts';
import { scratchFiles } from '../support/scratch-files.ts';
import { describeWithControlPlane, type RealCluster, startRealCluster } from './real-cluster.ts';

const namespace = 'images';
const files = scratchFiles('image-policy-control-plane');
const hostConfiguration = join(files.dir, 'webhook-admission-configuration.yaml');
const values = {
  pluginMode: 'enforce',
  plugins: {
    AlwaysPullImages: { enabled: false, mode: '' },
    OwnerReferencesPermissionEnforcement: { enabled: false, mode: '' },
    ImagePolicyWebhook: {
      enabled: true,
      mode: 'enforce',
      kubeConfigSecret: { name: 'image-policy-backend' },
      allowTTL: 60,
      denyTTL: 60,
      retryBackoff: 1,
      defaultAllow: true,
    },
  },
};

const pod = (name: string, images: string[], annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, annotations },
  spec: { containers: images.map((image, index) => ({ name: `c${index}`, image })), initContainers: [{ name: 'init', image: 'good' }] },
});

describeWithControlPlane('ImagePolicyWebhook on a real kube-apiserver, and beside the in-tree plugin', () => {
  let cluster: RealCluster;
  let inTree: ControlPlane;
  let scratch: string;
  let inTreeKubectl: (...args: string[]) => Promise<KubectlResult>;
  const ourService = new MockService();
  const theirService = new MockService();
  let ourBackend: TestBackend;
  let theirBackend: TestBackend;

  /** Both servers, theirs first: the same kubectl arguments, each its own file of the same objects. */
  const both = async (args: (file: string) => string[], ...objects: object[]) => {
    const file = files.write('objects.yaml', objects.map((o) => `---\n${stringify(o)}`).join(''));
    return { theirs: await inTreeKubectl(...args(file)), ours: await cluster.kubectl(...args(file)), file };
  };

  beforeAll(async () => {
    const certs = await testCertificates();
    ourBackend = await startTestBackend(ourService, { cert: certs.server, clientCA: certs.ca.cert });
    theirBackend = await startTestBackend(theirService, { cert: certs.server, clientCA: certs.ca.cert });
    const ourKubeConfig = writeKubeConfig(files, { server: ourBackend.url, ca: certs.ca.cert, clientCert: certs.client });
    const theirKubeConfig = writeKubeConfig(files, { server: theirBackend.url, ca: certs.ca.cert, clientCert: certs.client });

    // The pod would read the kubeconfig from the Secret the chart mounts; here the same file
    // the chart renders points at this host's copy.
    cluster = await startRealCluster({
      values,
      startWebhook: false,
      webhookArgs: [`--admission-control-config-file=${hostConfiguration}`],
    });
    const configMap = cluster.rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-admission-configuration')) as
      | { data: Record<string, string> }
      | undefined;
    const rendered = Object.values(configMap!.data)[0]!;
    expect(rendered).toContain('kubeConfigFile: "/etc/admission-chain/image-policy/kubeconfig"');
    await writeFile(hostConfiguration, rendered.replace('/etc/admission-chain/image-policy/kubeconfig', ourKubeConfig));
    await cluster.startWebhook();
    await cluster.registered();
    await cluster.kubectlOk('create', 'namespace', namespace);

    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-image-policy-'));
    const theirConfiguration = join(scratch, 'admission-configuration.yaml');
    await writeFile(theirConfiguration, rendered.replace('/etc/admission-chain/image-policy/kubeconfig', theirKubeConfig));
    inTree = await startControlPlane({
      dir: join(scratch, 'in-tree'),
      apiServerArgs: ['--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${theirConfiguration}`],
    });
    inTreeKubectl = (...args) =>
      runKubectl(join(scratch, 'home'), inTree.kubeconfigPath, args, { cwd: repoRoot, kubectl: inTree.binaries.kubectl });
    expect((await inTreeKubectl('create', 'namespace', namespace)).code).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await inTree?.stop();
    await ourBackend?.close();
    await theirBackend?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('an allowed pod is created on both, and both backends were sent the same ImageReview', async () => {
    ourService.allow = theirService.allow = true;
    const { theirs, ours } = await both(
      (file) => ['create', '--dry-run=server', '-f', file],
      pod('allowed', ['nginx:1.27', 'good'], { 'team.image-policy.k8s.io/owner': 'web', other: 'x' }),
    );
    expect(theirs).toEqual({ code: 0, stdout: 'pod/allowed created (server dry run)\n', stderr: '' });
    expect(ours).toEqual(theirs);
    expect(ourService.received.at(-1)).toEqual(theirService.received.at(-1));
    expect(ourService.received.at(-1)?.spec).toEqual({
      containers: [{ image: 'nginx:1.27' }, { image: 'good' }, { image: 'good' }],
      annotations: { 'team.image-policy.k8s.io/owner': 'web' },
      namespace,
    });
  });

  it("a denied pod is refused on both in upstream's words", async () => {
    const { theirs, ours, file } = await both((f) => ['create', '--dry-run=server', '-f', f], pod('denied', ['good', 'bad']));
    const refusal = 'pods "denied" is forbidden: image policy webhook backend denied one or more images: not allowed';
    expect(theirs).toEqual({ code: 1, stdout: '', stderr: `Error from server (Forbidden): error when creating "${file}": ${refusal}\n` });
    expect(ours).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error from server (Forbidden): error when creating "${file}": admission webhook "validate.admission-chain.io" denied the request: ${refusal}\n`,
    });
    expect(ourService.received.at(-1)).toEqual(theirService.received.at(-1));
  });

  it('kubectl debug: the ephemeral container alone is reviewed, and a bad one is refused on both alike', async () => {
    const { theirs, ours } = await both((file) => ['create', '-f', file], pod('debugged', ['good']));
    expect([theirs.code, ours.code]).toEqual([0, 0]);
    const debug = ['debug', 'pod/debugged', '-n', namespace, '--image=bad', '--container=debugger'];
    const [theirDebug, ourDebug] = [await inTreeKubectl(...debug), await cluster.kubectl(...debug)];
    const refusal = 'pods "debugged" is forbidden: image policy webhook backend denied one or more images: not allowed';
    expect(theirDebug.code).toBe(1);
    expect(theirDebug.stderr).toContain(`Error from server (Forbidden): ${refusal}`);
    expect(ourDebug.code).toBe(1);
    expect(ourDebug.stderr).toContain(
      `Error from server (Forbidden): admission webhook "validate.admission-chain.io" denied the request: ${refusal}`,
    );
    expect(ourService.received.at(-1)?.spec).toEqual({ containers: [{ image: 'bad' }], namespace });
    expect(ourService.received.at(-1)).toEqual(theirService.received.at(-1));
  });

  it('a failing backend: the pod is created on both, and neither stores a failed-open mark', async () => {
    ourService.statusCode = theirService.statusCode = 500;
    try {
      const { theirs, ours } = await both((file) => ['create', '-f', file], pod('failed-open', ['unreviewed']));
      expect(theirs).toEqual({ code: 0, stdout: 'pod/failed-open created\n', stderr: '' });
      expect(ours).toEqual(theirs);
      const annotations = async (kubectl: (...args: string[]) => Promise<KubectlResult>) =>
        (
          parse((await kubectl('get', 'pod', 'failed-open', '-n', namespace, '-o', 'yaml')).stdout) as {
            metadata: { annotations?: object };
          }
        ).metadata.annotations;
      // The in-tree plugin marks the copy kube-apiserver's registry hands to validation, so its mark is
      // never stored; ours makes none (docs/image-policy-webhook.md).
      expect(await annotations(inTreeKubectl)).toBeUndefined();
      expect(await annotations(cluster.kubectl)).toBeUndefined();
    } finally {
      ourService.statusCode = theirService.statusCode = 200;
    }
  });
});
