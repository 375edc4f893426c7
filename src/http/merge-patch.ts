/**
 * RFC 7396 JSON Merge Patch. Hand-written: the algorithm is the RFC's ten-line pseudocode,
 * and the npm packages for it are unmaintained.
 *
 * Every member name is an ordinary key, as JSON.parse makes it: `__proto__` included. Plain
 * assignment would set the result's prototype instead, and an object with a foreign prototype
 * cannot cross a Durable Object RPC boundary (DataCloneError).
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else setOwn(result, name, applyMergePatch(Object.hasOwn(result, name) ? result[name] : undefined, value));
  }
  return result;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Creates or replaces an own data property, as JSON.parse and object spread do. */
function setOwn(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
}
