// metav1.Status failures worded as kube-apiserver words them, so clients see exactly the error
// bodies (and codes, reasons, details) a real cluster would send.

export interface ApiStatus {
  apiVersion: 'v1';
  kind: 'Status';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  code: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
}

function failure(code: number, reason: string, message: string, details?: ApiStatus['details']): ApiStatus {
  const status: ApiStatus = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) status.details = details;
  return status;
}

function qualified(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

/** apierrors.NewNotFound. */
export function notFound(group: string, resource: string, name: string): ApiStatus {
  return failure(404, 'NotFound', `${qualified(group, resource)} ${JSON.stringify(name)} not found`, { name, group, kind: resource });
}

/** What the mux answers for a path no handler serves. */
export function pathNotFound(): ApiStatus {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {
    causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }],
  });
}

export function methodNotAllowed(): ApiStatus {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

export function badRequest(message: string): ApiStatus {
  return failure(400, 'BadRequest', message);
}

export function unauthorized(): ApiStatus {
  return failure(401, 'Unauthorized', 'Unauthorized');
}

/** apierrors.NewInvalid: one field error is printed bare, several as a bracketed list. */
export function invalid(group: string, kind: string, name: string, fieldErrors: Array<{ field: string; message: string }>): ApiStatus {
  const list = fieldErrors.map((e) => `${e.field}: ${e.message}`);
  const joined = list.length === 1 ? list[0]! : `[${list.join(', ')}]`;
  return failure(422, 'Invalid', `${qualified(group, kind)} ${JSON.stringify(name)} is invalid: ${joined}`, {
    name,
    group,
    kind,
    causes: fieldErrors.map((e) => ({ reason: 'FieldValueInvalid', message: e.message, field: e.field })),
  });
}

/** The max-in-flight filter's rejection (apiserver tooManyRequests), sent with a Retry-After header. */
export function tooManyRequests(retryAfterSeconds: number): ApiStatus {
  return failure(
    429,
    'TooManyRequests',
    'Too many requests, please try again later.',
    retryAfterSeconds > 0 ? { retryAfterSeconds } : undefined,
  );
}

export function forbidden(message: string): ApiStatus {
  return failure(403, 'Forbidden', message);
}

/** A failure Status for an HTTP code, with the reason apimachinery pairs with it. */
export function statusForCode(code: number, message: string): ApiStatus {
  switch (code) {
    case 400:
      return badRequest(message);
    case 401:
      return unauthorized();
    case 403:
      return forbidden(message);
    case 404:
      return failure(404, 'NotFound', message);
    case 405:
      return methodNotAllowed();
    case 409:
      return failure(409, 'Conflict', message);
    case 429:
      return failure(429, 'TooManyRequests', message);
    default:
      return code >= 500 ? serverError(code, message) : failure(code, 'Unknown', message);
  }
}

/** apierrors.NewInternalError. */
export function internalError(message: string): ApiStatus {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** Any other 5xx (503 ServiceUnavailable, 504 Timeout) with the reason upstream uses for that code. */
export function serverError(code: number, message: string): ApiStatus {
  const reasons: Record<number, string> = { 503: 'ServiceUnavailable', 504: 'Timeout' };
  return code === 500 ? internalError(message) : failure(code, reasons[code] ?? 'InternalError', message);
}
