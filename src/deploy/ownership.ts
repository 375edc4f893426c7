import { Problem } from '../http/problem';

/** 404: the domain has no site. */
export function siteNotFound(domain: string): Problem {
  return new Problem('site-not-found', `No site is hosted at ${domain}.`);
}

/** 403: the first deploy claimed the domain for someone else. */
export function ownedByAnotherUser(domain: string): Problem {
  return new Problem('forbidden', `The site ${domain} is owned by another user.`);
}
