// `npm run token -- --user 'github|1' --scope deploy,global_read [--ttl 1h]`: prints one bare
// token signed with the AUTH_SECRET environment variable when set, else .dev.vars' one, for the
// local service.
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { ensureAuthSecret } from './dev-vars.mjs';

const usage = "usage: npm run token -- --user <id> [--scope deploy,global_read] [--ttl 1h]";
let values;
try {
  ({ values } = parseArgs({
    options: {
      user: { type: 'string' },
      scope: { type: 'string', default: 'deploy' },
      ttl: { type: 'string', default: '1h' },
      issuer: { type: 'string', default: 'sitehost' },
      audience: { type: 'string', default: 'sitehost' },
    },
  }));
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (!values.user) {
  console.error(`--user is required\n${usage}`);
  process.exit(2);
}

const secret = process.env.AUTH_SECRET || ensureAuthSecret();
const scopes = values.scope.split(',').map((scope) => scope.trim()).filter(Boolean);
const token = await new SignJWT({ scope: scopes.join(' ') })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(values.user)
  .setIssuer(values.issuer)
  .setAudience(values.audience)
  .setIssuedAt()
  .setExpirationTime(values.ttl)
  .sign(new TextEncoder().encode(secret));
process.stdout.write(`${token}\n`);
