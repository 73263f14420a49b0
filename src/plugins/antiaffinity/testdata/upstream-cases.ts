// Upstream plugin/pkg/admission/antiaffinity/admission_test.go TestInterPodAffinityAdmission, every
// row, as data: the plugin's unit test and the offline review test both run them.

const selector = { matchExpressions: [{ key: 'security', operator: 'In', values: ['S2'] }] };
export const term = (topologyKey: string) => ({ labelSelector: selector, namespaces: [''], topologyKey });
const preferredAz = [{ weight: 5, podAffinityTerm: term('az') }];

export interface AntiAffinityCase {
  name: string;
  /** The pod's spec.affinity. */
  affinity: object;
  errorExpected: boolean;
}

export const interPodAffinityCases: AntiAffinityCase[] = [
  { name: 'empty affinity its success', affinity: {}, errorExpected: false },
  {
    name: 'what ever topologyKey in preferredDuringSchedulingIgnoredDuringExecution, the admission should success',
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferredAz } },
    errorExpected: false,
  },
  {
    name: 'valid topologyKey in requiredDuringSchedulingIgnoredDuringExecution, plus any topologyKey in preferredDuringSchedulingIgnoredDuringExecution, then admission success',
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: preferredAz,
        requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname')],
      },
    },
    errorExpected: false,
  },
  {
    name: 'valid topologyKey in requiredDuringSchedulingIgnoredDuringExecution then admission success',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname')] } },
    errorExpected: false,
  },
  {
    name: 'invalid topologyKey in requiredDuringSchedulingIgnoredDuringExecution then admission fails',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(' zone ')] } },
    errorExpected: true,
  },
  {
    name: 'list of requiredDuringSchedulingIgnoredDuringExecution middle element topologyKey is not valid',
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname'), term(' zone '), term('kubernetes.io/hostname')],
      },
    },
    errorExpected: true,
  },
];
