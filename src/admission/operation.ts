/** Admission operations, as AdmissionRequest.operation spells them. */
export const Operation = {
  Create: 'CREATE',
  Update: 'UPDATE',
  Delete: 'DELETE',
  Connect: 'CONNECT',
} as const;
export type Operation = (typeof Operation)[keyof typeof Operation];

export const allOperations: readonly Operation[] = Object.values(Operation);

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && (allOperations as readonly string[]).includes(value);
}
