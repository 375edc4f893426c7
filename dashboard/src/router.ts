/** The screens, addressed by the URL's fragment so that the Worker serves one page for all of them. */
export type Route =
  | { screen: 'sites' }
  | { screen: 'tokens' }
  /** An operator's view of a user: whether they are suspended; without `userId`, a form that asks for one. */
  | { screen: 'users'; userId?: string }
  | { screen: 'deploy'; domain?: string }
  | { screen: 'site'; domain: string }
  | { screen: 'configuration'; domain: string }
  /** A deployment's rules: the live one's without `deployment`. */
  | { screen: 'rules'; domain: string; deployment?: string }
  | { screen: 'files'; domain: string; directory: string };

/** Undefined for fragments that are not routes (an in-page anchor such as the skip link's `#main`). */
export function parseRoute(hash: string): Route | undefined {
  if (hash === '' || hash === '#') return { screen: 'sites' };
  if (!hash.startsWith('#/')) return undefined;
  const [first = '', second, third, ...rest] = hash.slice(2).split('/');
  const domain = second ? decodeURIComponent(second) : undefined;
  if (first === '') return { screen: 'sites' };
  if (first === 'deploy') return { screen: 'deploy', domain };
  if (first === 'tokens') return { screen: 'tokens' };
  if (first === 'users') return second ? { screen: 'users', userId: decodeURIComponent(second) } : { screen: 'users' };
  if (first === 'sites' && domain) {
    if (third === undefined || third === '') return { screen: 'site', domain };
    if (third === 'configuration') return { screen: 'configuration', domain };
    if (third === 'rules') return rest[0] ? { screen: 'rules', domain, deployment: decodeURIComponent(rest[0]) } : { screen: 'rules', domain };
    if (third === 'files') return { screen: 'files', domain, directory: `/${rest.map(decodeURIComponent).join('/')}` };
  }
  return { screen: 'sites' };
}

/** The fragment of a route: `link({screen: 'files', domain, directory: '/css/'})` is `#/sites/<domain>/files/css/`. */
export function link(route: Route): string {
  switch (route.screen) {
    case 'sites':
      return '#/';
    case 'tokens':
      return '#/tokens';
    case 'users':
      return route.userId ? `#/users/${encodeURIComponent(route.userId)}` : '#/users';
    case 'deploy':
      return route.domain ? `#/deploy/${encodeURIComponent(route.domain)}` : '#/deploy';
    case 'site':
      return `#/sites/${encodeURIComponent(route.domain)}`;
    case 'configuration':
      return `#/sites/${encodeURIComponent(route.domain)}/configuration`;
    case 'rules':
      return `#/sites/${encodeURIComponent(route.domain)}/rules${route.deployment ? `/${encodeURIComponent(route.deployment)}` : ''}`;
    case 'files': {
      const directory = route.directory.split('/').map(encodeURIComponent).join('/');
      return `#/sites/${encodeURIComponent(route.domain)}/files${directory.startsWith('/') ? directory : `/${directory}`}`;
    }
  }
}
