// Core v1 shapes the pod-facing plugins read and write (a subset; unknown fields are kept as-is).
import type { KubeObject } from './types.ts';

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  volumeMounts?: VolumeMount[];
  [key: string]: unknown;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  [key: string]: unknown;
}

export interface Volume {
  name: string;
  image?: { reference?: string; pullPolicy?: string };
  [key: string]: unknown;
}

export interface LocalObjectReference {
  name?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: LocalObjectReference[];
  runtimeClassName?: string;
  overhead?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  [key: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
}
