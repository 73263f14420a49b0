// A metav1.Status failure with any code and reason (including the empty reason a webhook may leave),
// which the stand-in's own ApiStatus helpers do not model.
export interface KubeStatus {
  apiVersion: 'v1';
  kind: 'Status';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason?: string;
  code: number;
  details?: { name?: string; group?: string; kind?: string; causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

export function kubeStatus(code: number, reason: string, message: string, details?: KubeStatus['details']): KubeStatus {
  const status: KubeStatus = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, code };
  if (reason !== '') status.reason = reason;
  if (details !== undefined) status.details = details;
  return status;
}
