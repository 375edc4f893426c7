// `npm run token -- --user 'github|1' --scope deploy,global_read [--ttl 1h]`: prints one bare
// token signed with the AUTH_SECRET environment variable when set, else .dev.vars' one, for the
// local service.
import { parseArgs } from 'node:util';
import { ensureAuthSecret } from './dev-vars.mjs';
import { signToken } from './sign-token.mjs';

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
const token = await signToken({ user: values.user, scope: scopes.join(' '), secret, ttl: values.ttl, issuer: values.issuer, audience: values.audience });
process.stdout.write(`${token}\n`);
