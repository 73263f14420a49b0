// Validates rendered objects against the Kubernetes OpenAPI schemas compiled into kubernetes-models.
// The models only describe built-in APIs; custom resources (cert-manager, Prometheus Operator) have no
// schema here, so tests assert their fields directly instead.
import * as models from 'kubernetes-models';
import type { KubeObject } from './helm.ts';

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: unknown): { validate(): void };
}

function isModelClass(value: unknown): value is ModelClass {
  return (
    typeof value === 'function' &&
    typeof (value as Partial<ModelClass>).kind === 'string' &&
    typeof (value as Partial<ModelClass>).apiVersion === 'string'
  );
}

const modelsByType = new Map<string, ModelClass>();
// Built-in groups nest as group -> version -> model; the core group is a version namespace at the top.
function collectModels(namespace: Record<string, unknown>, depth: number): void {
  for (const value of Object.values(namespace)) {
    if (isModelClass(value)) modelsByType.set(`${value.apiVersion}/${value.kind}`, value);
    else if (depth > 0 && typeof value === 'object' && value !== null) collectModels(value as Record<string, unknown>, depth - 1);
  }
}
collectModels(models, 2);

export function hasKubernetesSchema(apiVersion: string, kind: string): boolean {
  return modelsByType.has(`${apiVersion}/${kind}`);
}

/** Throws (with the schema's message) when the object breaks its API's schema or its API is unknown. */
export function validateKubernetesObject(object: KubeObject): void {
  const model = modelsByType.get(`${object.apiVersion}/${object.kind}`);
  if (!model) throw new Error(`no Kubernetes schema for ${object.apiVersion} ${object.kind}`);
  const { apiVersion: _apiVersion, kind: _kind, ...data } = object;
  try {
    new model(data).validate();
  } catch (error) {
    throw new Error(`${object.kind} ${object.metadata.name}: ${(error as Error).message}`, { cause: error });
  }
}
