// A deep copy for JSON-shaped values (what an AdmissionReview object is): several times cheaper
// than structuredClone, which must handle every type the structured-clone algorithm knows.
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = cloneJson(value[i]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = cloneJson((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own data property; plain assignment would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}
