import { onUnauthorized } from './api';
import { fill, h } from './dom';
import { finishSignIn, isSignInResponse } from './openid';
import { loadPageConfig, type PageConfig } from './page-config';
import { link, parseRoute, type Route } from './router';
import { errorMessage, type Screen, type ScreenContext } from './screen';
import { configurationScreen } from './screens/configuration';
import { deployScreen } from './screens/deploy';
import { filesScreen } from './screens/files';
import { rulesScreen } from './screens/rules';
import { signInScreen } from './screens/sign-in';
import { siteScreen } from './screens/site';
import { sitesScreen } from './screens/sites';
import { tokensScreen } from './screens/tokens';
import { usersScreen } from './screens/users';
import { currentToken, forgetToken, keepToken, readClaims } from './session';

const main = document.getElementById('main') as HTMLElement;
const account = document.getElementById('account') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;

let pageConfig: PageConfig;
let leaving = new AbortController();
let firstRender = true;

function screenFor(route: Route, context: ScreenContext): Screen {
  switch (route.screen) {
    case 'sites':
      return sitesScreen(context);
    case 'tokens':
      return tokensScreen(context);
    case 'users':
      return usersScreen(context, route.userId);
    case 'deploy':
      return deployScreen(context, route.domain);
    case 'site':
      return siteScreen(context, route.domain);
    case 'configuration':
      return configurationScreen(context, route.domain);
    case 'files':
      return filesScreen(context, route.domain, route.directory);
    case 'rules':
      return rulesScreen(context, route.domain, route.deployment);
  }
}

function renderHeader(token: string | null, route: Route): void {
  const current = (screen: Route['screen'][]) => (screen.includes(route.screen) ? 'page' : undefined);
  fill(
    nav,
    token && [
      h('a', { href: link({ screen: 'sites' }), 'aria-current': current(['sites']) }, 'My sites'),
      h('a', { href: link({ screen: 'deploy' }), 'aria-current': current(['deploy']) }, 'Deploy'),
      h('a', { href: link({ screen: 'tokens' }), 'aria-current': current(['tokens']) }, 'Tokens'),
      // For display only, as the claims are: the service refuses a user's suspension to any token without admin.
      readClaims(token)?.scopes.includes('admin') && h('a', { href: link({ screen: 'users' }), 'aria-current': current(['users']) }, 'Users'),
    ],
  );
  const claims = token ? readClaims(token) : undefined;
  fill(
    account,
    token && [
      claims?.sub && h('span', { class: 'who', title: claims.scopes.join(' ') }, claims.sub),
      h('button', { type: 'button', class: 'secondary small', onclick: signOut }, 'Sign out'),
    ],
  );
}

function signOut(): void {
  forgetToken();
  render();
}

function render(problem?: unknown): void {
  const route = parseRoute(location.hash);
  if (!route) return;
  leaving.abort();
  leaving = new AbortController();
  const context: ScreenContext = { config: pageConfig, signal: leaving.signal };
  const token = currentToken();
  const screen = token ? screenFor(route, context) : signInScreen(context, () => render(), problem);
  renderHeader(token, route);
  fill(main, screen.element);
  document.title = `${screen.title} · Sitehost`;
  // On navigation, focus the new screen's heading so that keyboard and screen reader users start there.
  if (!firstRender) screen.element.querySelector<HTMLElement>('h1')?.focus();
  firstRender = false;
}

async function start(): Promise<void> {
  try {
    pageConfig = await loadPageConfig();
  } catch (error) {
    fill(main, errorMessage(error));
    return;
  }
  let problem: unknown;
  const url = new URL(location.href);
  if (pageConfig.openId && isSignInResponse(url)) {
    try {
      keepToken(await finishSignIn(pageConfig.openId, url));
    } catch (error) {
      problem = error;
    }
    // Drop ?code=&state= from the address bar and the history.
    history.replaceState(null, '', `/${location.hash}`);
  }
  onUnauthorized((error) => {
    forgetToken();
    render(error);
  });
  window.addEventListener('hashchange', () => render());
  render(problem);
}

void start();
