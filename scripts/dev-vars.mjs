// Local secrets live in .dev.vars (git-ignored), which wrangler dev loads.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const devVarsPath = new URL('../.dev.vars', import.meta.url);

/** Reads .dev.vars as name/value pairs. */
export function readDevVars() {
  if (!existsSync(devVarsPath)) return {};
  const vars = {};
  for (const line of readFileSync(devVarsPath, 'utf8').split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"?(.*?)"?\s*$/.exec(line);
    if (match) vars[match[1]] = match[2];
  }
  return vars;
}

/** Adds a random `name` to .dev.vars (creating it) when it has none; returns the secret. */
export function ensureSecret(name) {
  const vars = readDevVars();
  if (vars[name]) return vars[name];
  const secret = randomBytes(32).toString('base64url');
  const existing = existsSync(devVarsPath) ? readFileSync(devVarsPath, 'utf8') : '';
  writeFileSync(devVarsPath, `${existing}${existing && !existing.endsWith('\n') ? '\n' : ''}${name}=${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The secret that signs self-issued tokens, created in .dev.vars when missing. */
export function ensureAuthSecret() {
  return ensureSecret('AUTH_SECRET');
}
