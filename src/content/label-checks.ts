/**
 * A deployment's labels, checked as a request brings them: its message, its alias (and the host
 * label the alias is served at) and the client that made it (docs/design.md, "Deployments").
 */
import { type DeploymentClient, aliasHashLength, aliasProblem, clientHeader, clientOf, maxMessageLength, messageProblem } from '../common/deployment-labels';
import { Problem } from '../http/problem';
import type { DeploymentProvenance } from '../common/api-types';

export interface DeploymentLabels {
  message: string | null;
  client: DeploymentClient;
  alias: string | null;
  /** The first label of the alias's host, `<alias>--<site part>`: unique to the domain and the alias. */
  aliasLabel: string | null;
  /** With what credential it was made (src/auth/tokens.ts `provenanceOf`); null for an edit of files or configuration. */
  provenance: DeploymentProvenance | null;
}

/** What a request may say of its deployment, unchecked: a manifest's members, a multipart deploy's fields. */
export interface RequestedLabels {
  message?: unknown;
  alias?: unknown;
}

/** A deployment with no labels, made by `client`: a file edit, a configuration edit. */
export function unlabelled(client: DeploymentClient): DeploymentLabels {
  return { message: null, client, alias: null, aliasLabel: null, provenance: null };
}

/** The client the request names in its `Sitehost-Client` header. */
export function requestClient(request: Request): DeploymentClient {
  return clientOf(request.headers.get(clientHeader));
}

/** The labels of a deployment `client` makes on `domain` with what the request said; 400 naming what is wrong. */
export async function labelsOf(domain: string, requested: RequestedLabels, client: DeploymentClient, provenance: DeploymentProvenance): Promise<DeploymentLabels> {
  const message = checkedMessage(requested.message);
  const alias = checkedAlias(requested.alias);
  return { message, client, alias, aliasLabel: alias === null ? null : await aliasLabel(domain, alias), provenance };
}

/** A deployment's message as sent (absent or empty: none); 400 naming MAX_MESSAGE_LENGTH past it. */
export function checkedMessage(message: unknown): string | null {
  if (message === undefined || message === null || message === '') return null;
  if (typeof message !== 'string') throw new Problem('invalid-request', 'The "message" must be text.');
  const refusal = messageProblem(message);
  if (!refusal) return message;
  const overLimit = [...message].length > maxMessageLength;
  throw new Problem('invalid-request', `The deployment's "message" is refused: ${refusal}.`, {
    errors: [{ pointer: '/message', message: refusal }],
    ...(overLimit ? { extensions: { limit: 'MAX_MESSAGE_LENGTH', value: maxMessageLength } } : {}),
  });
}

/** A deployment's alias as sent (absent: none); 400 saying what an alias is. */
export function checkedAlias(alias: unknown): string | null {
  if (alias === undefined || alias === null) return null;
  if (typeof alias !== 'string') throw new Problem('invalid-request', 'The "alias" must be text.');
  const refusal = aliasProblem(alias);
  if (refusal) throw new Problem('invalid-request', `The alias ${JSON.stringify(alias)} is refused: ${refusal}.`);
  return alias;
}

/** RFC 4648's base32 alphabet in lower case, as deployment ids are written: DNS-label characters. */
const base32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** Characters of the domain's hash in an alias label: 65 bits, so no domain can be made to share another's. */
const hashCharacters = aliasHashLength;
const maxLabelLength = 63;

/**
 * The first label of an alias's host: `<alias>--<domain, dots as hyphens, cut to fit>-<13 characters
 * of the domain's SHA-256>`, one DNS label of at most 63 characters, so that one wildcard
 * certificate of the preview host covers it. The hash keeps two domains' labels apart
 * (`a-b.com` and `a.b.com`), and the `--` apart from deployment ids, which have no hyphen.
 */
export async function aliasLabel(domain: string, alias: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(domain)));
  let hash = '';
  for (let bit = 0; hash.length < hashCharacters; bit += 5) {
    const byte = bit >> 3;
    const pair = ((digest[byte] ?? 0) << 8) | (digest[byte + 1] ?? 0);
    hash += base32[(pair >> (11 - (bit & 7))) & 31];
  }
  const room = maxLabelLength - alias.length - '--'.length - '-'.length - hashCharacters;
  const readable = domain.replaceAll('.', '-').slice(0, room).replace(/-+$/, '');
  return `${alias}--${readable ? `${readable}-` : ''}${hash}`;
}
