// schema/openapi.json's `HostOptions` is schema/host.schema.json, made readable by OpenAPI tools:
// the host schema's `$defs` references (`#/$defs/hostname`) resolve against its own `$id` in JSON
// Schema, but code generators, linters and document viewers resolve `#` against the OpenAPI
// document. So the copy drops `$id` and points each reference into itself within the document.
// `node scripts/openapi-host-options.mjs` writes the copy after schema/host.schema.json changes;
// test/api/openapi.test.ts checks that it is current.

/** Where the host schema sits in schema/openapi.json. */
export const hostOptionsPointer = '#/components/schemas/HostOptions';

/** `hostSchema` as schema/openapi.json embeds it. */
export function hostOptionsComponent(hostSchema) {
  const rewrite = (node) => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => node !== hostSchema || key !== '$id')
        .map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${hostOptionsPointer}${value.slice(1)}` : rewrite(value)]),
    );
  };
  return rewrite(hostSchema);
}

if (import.meta.main) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const file = (name) => new URL(`../schema/${name}`, import.meta.url);
  const document = JSON.parse(readFileSync(file('openapi.json'), 'utf8'));
  document.components.schemas.HostOptions = hostOptionsComponent(JSON.parse(readFileSync(file('host.schema.json'), 'utf8')));
  writeFileSync(file('openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
}
