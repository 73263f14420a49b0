// Upstream podtolerationrestriction config_test.go TestConfigParse, the default when there is no
// configuration (TestHandles loads it), and start-up errors naming the field. v1alpha1 is the only
// version: kube-apiserver refuses a v1 Configuration at start-up (no such kind registered).

import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseConfiguration } from './configuration.ts';

const source = 'ptr.yaml (plugins[1].path in admission.yaml)';
const parseYaml = (text: string) =>
  parseConfiguration({ source, documents: parseAllDocuments(text).map((d) => d.toJS()) }, 'PodTolerationRestriction');

describe('TestConfigParse', () => {
  it.each(['v1alpha1'])('Test config parse for api version: %s', (version) => {
    const parsed = parseYaml(`apiVersion: podtolerationrestriction.admission.k8s.io/${version}
kind: Configuration
default:
- key: key1
  operator: Equal
  value: value1
whitelist:
- key: key2
  operator: Equal
  value: value2`);
    expect(parsed).toEqual({
      default: [{ key: 'key1', operator: 'Equal', value: 'value1' }],
      whitelist: [{ key: 'key2', operator: 'Equal', value: 'value2' }],
    });
  });
});

describe('parseConfiguration', () => {
  it('without a configuration: no defaults, no whitelist', () => {
    expect(parseConfiguration(undefined, 'PodTolerationRestriction')).toEqual({ default: [], whitelist: [] });
  });

  it('ignores unknown fields and writes tolerations as a pod carries them', () => {
    const parsed = parseYaml(`apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
extra: ignored
default:
- {key: a, operator: Exists, value: "", effect: NoExecute, tolerationSeconds: 30, surprise: 1}`);
    expect(parsed.default).toEqual([{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }]);
  });

  it.each([
    [
      'kind: Configuration\n',
      `${source}: plugin PodTolerationRestriction: apiVersion: missing: expected one of podtolerationrestriction.admission.k8s.io/v1alpha1`,
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v2\nkind: Configuration\n',
      'apiVersion: unknown version "podtolerationrestriction.admission.k8s.io/v2"',
    ],
    // kube-apiserver v1.37: no kind "Configuration" is registered for version "podtolerationrestriction.admission.k8s.io/v1".
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1\nkind: Configuration\n',
      'apiVersion: unknown version "podtolerationrestriction.admission.k8s.io/v1": expected one of podtolerationrestriction.admission.k8s.io/v1alpha1',
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Config\n',
      'kind: expected "Configuration", got string "Config"',
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\ndefault: {key: a}\n',
      'default: expected a list of tolerations, got an object',
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nwhitelist: [{key: a, tolerationSeconds: "5"}]\n',
      'whitelist[0].tolerationSeconds: expected an integer, got string "5"',
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nwhitelist: [{key: 5}]\n',
      'whitelist[0].key: expected a string, got number 5',
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nwhitelist: [{key: foo, operator: Exists, value: bar, effect: NoSchedule}]\n',
      `plugin PodTolerationRestriction: whitelist[0].operator: Invalid value: {"Key":"foo","Operator":"Exists","Value":"bar","Effect":"NoSchedule","TolerationSeconds":null}: value must be empty when \`operator\` is 'Exists'`,
    ],
    [
      'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\ndefault: [{operator: Equal, value: bar, effect: NoSchedule}]\n',
      'plugin PodTolerationRestriction: default[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty',
    ],
    [
      '- a\n- b\n',
      'plugin PodTolerationRestriction: expected a podtolerationrestriction.admission.k8s.io/v1alpha1 Configuration, got a list',
    ],
  ])('refuses %j', (text, message) => {
    expect(() => parseYaml(text)).toThrow(message);
  });
});
