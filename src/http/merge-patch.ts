/**
 * RFC 7396 JSON Merge Patch. Hand-written: the algorithm is the RFC's ten-line pseudocode,
 * and the npm packages for it are unmaintained.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = applyMergePatch(result[name], value);
  }
  return result;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
