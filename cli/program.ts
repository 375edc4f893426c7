import { Command } from 'commander';
import pc from 'picocolors';
import { configFilePath } from './credentials.ts';
import { ignoreFileName } from './deploy/collect.ts';
import { cacheFolder } from './deploy/hash-cache.ts';
import { exitCodeHelp } from './errors.ts';
import { version } from './version.ts';

/**
 * The `sitehost` command line: every command's arguments and help. A command's code is
 * imported only when it runs, which keeps a deploy's memory to what deploying needs.
 * Commander errors are thrown, not exited on, so main.ts can map them to exit code 2; with `json`
 * (`--json` given), commander prints none of them: main.ts prints the problem as JSON.
 */
export function createProgram(json = false): Command {
  const program = new Command('sitehost')
    .description('Publish static sites to a Sitehost service.')
    // Listed in the help; main.ts answers it (commands/version.ts).
    .version(version, '-V, --version', "print the CLI's version, and the service's")
    .option('--debug', 'show stack traces of errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(json ? { writeErr: () => {}, outputError: () => {} } : { outputError: (text, write) => write(pc.red(text)) })
    .addHelpText('after', `\nLogin: \`sitehost login\`, or SITEHOST_ORIGIN and SITEHOST_TOKEN in the environment (CI).\n\n${exitCodeHelp}`);

  program
    .command('login')
    .description('check a token against the API, then store it with the API origin')
    .option('--origin <url>', 'the API origin', 'http://localhost:8787')
    .option('--token <token>', 'the bearer token (else asked for, or read from standard input)')
    .option('--json', 'print who logged in, and where the login is stored, as JSON')
    .addHelpText('after', `\nStored in ${configFilePath()} (mode 0600).\nSITEHOST_ORIGIN and SITEHOST_TOKEN override it.`)
    .action(async (options) => (await import('./commands/login.ts')).login(options));

  program
    .command('logout')
    .description('forget the stored login')
    .option('--everywhere', 'first revoke every API token of yours and every token issued to you before now (sign-out everywhere)')
    .option('-y, --yes', 'with --everywhere: do not ask for confirmation (required when not on a terminal)')
    .option('--json', 'print whether a login was forgotten (and what was revoked) as JSON')
    .action(async (options) =>
      options.everywhere ? (await import('./commands/tokens.ts')).logoutEverywhere(options) : (await import('./commands/login.ts')).logout(options),
    );

  program
    .command('whoami')
    .description('show who the token is, as the service reads it: user id, scopes, expiry')
    .option('--json', 'print the identity as JSON')
    .action(async (options) => (await import('./commands/login.ts')).whoami(options));

  program
    .command('deploy')
    .description('publish a folder as the site of a domain, replacing all of its files')
    .argument('[dir]', 'the folder whose content becomes the site root (default: ".")')
    .option('--dir <dir>', 'the same as [dir]')
    .option('-d, --domain <domain>', 'the domain to publish to (default: "domain" in the --config file)')
    .option('-c, --config <file>', 'host configuration (JSON) to deploy with the files')
    .option('--prod', 'put the deployment live: the default, also with --alias')
    .option('--preview', 'make a deployment without putting it live, and print its preview URL')
    .option('--alias <name>', 'a stable preview host for the newest deployment with this alias (a branch name does); makes a preview unless --prod')
    .option('-m, --message <text>', "the deployment's message, e.g. a commit SHA or title (at most 1,000 characters)")
    .option('--json', 'print only the result as JSON: id, url, previewUrl, aliasUrl and the deploy result or deployment')
    .option('--no-cache', 'read and hash every file, and ask the service what it lacks, without the record of earlier deploys from [dir]')
    .addHelpText(
      'after',
      `\nThe deployment goes live unless --preview or --alias (without --prod) is given. A folder the\nsite serves already makes no new deployment. Every file below [dir] is deployed except .git\nfolders, ${ignoreFileName} and what it lists (gitignore syntax, in [dir]). Only files whose content\nthe service does not have yet are uploaded, streamed from disk. Content hashes are remembered in\n${cacheFolder()} and a file is read again only when its size, times or inode changed.`,
    )
    .action(async (dir, options) => (await import('./commands/deploy.ts')).deploy(dir, options));

  program
    .command('deployments')
    .description("list a site's kept deployments, newest first, with the live one marked")
    .argument('<domain>')
    .option('--json', 'print the list as JSON')
    .action(async (domain, options) => (await import('./commands/deployments.ts')).listDeployments(domain, options));

  program
    .command('rollback')
    .description('make a kept deployment live again: the one named, or else the newest older one that was live')
    .argument('<domain>')
    .argument('[id]', 'the deployment to make live (see `sitehost deployments`)')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--json', 'print only the deploy result as JSON')
    .action(async (domain, id, options) => (await import('./commands/deployments.ts')).rollback(domain, id, options));

  program
    .command('analytics')
    .description("show a site's traffic, counted where it is served: totals, requests as a sparkline, top pages, referrers and not-found paths, and the links the live deployment broke")
    .argument('<domain>')
    .option('--since <when>', 'hours or days back from now (24h, 7d, 30d), or a UTC date or time (2026-11-01)', '7d')
    .option('--json', "print the service's answer as JSON")
    .action(async (domain, options) => (await import('./commands/analytics.ts')).showAnalytics(domain, options));

  program
    .command('sites')
    .description('list your sites')
    .option('--json', 'print the list as JSON')
    .action(async (options) => (await import('./commands/sites.ts')).listSites(options));

  program
    .command('usage')
    .description('show what you use of your quotas: sites, bytes stored, deploys in the last hour')
    .option('--json', 'print the usage as JSON')
    .action(async (options) => (await import('./commands/usage.ts')).showUsage(options));

  program
    .command('delete')
    .description('unpublish a site: remove its files and configuration')
    .argument('<domain>')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--json', 'print what was deleted as JSON')
    .action(async (domain, options) => (await import('./commands/sites.ts')).deleteSite(domain, options));

  const source = ['[source]', 'a JSON file, inline JSON text, or - for standard input (the default)'] as const;
  const config = program.command('config').description("read or change a site's host configuration");
  config
    .command('get')
    .description('print the host configuration (JSON)')
    .argument('<domain>')
    .option('--json', 'print the whole record (domain, modified, configuration)')
    .action(async (domain, options) => (await import('./commands/config.ts')).getConfig(domain, options));
  config
    .command('set')
    .description('replace the host configuration')
    .argument('<domain>')
    .argument(...source)
    .option('--json', 'print the resulting record as JSON')
    .addHelpText('after', `\nExample, a single-page app (its shell for every page path no file answers):\n  sitehost config set example.com '{"fallback": {"200": "/index.html"}}'`)
    .action(async (domain, input, options) => (await import('./commands/config.ts')).setConfig(domain, input, options));
  config
    .command('patch')
    .description('merge changes into the host configuration (JSON merge patch, RFC 7396: null removes a key)')
    .argument('<domain>')
    .argument(...source)
    .option('--json', 'print the resulting record as JSON')
    .action(async (domain, input, options) => (await import('./commands/config.ts')).patchConfig(domain, input, options));

  const files = program.command('files').description('list, add, replace or remove single files of a site');
  files
    .command('ls')
    .description('list a folder of the site')
    .argument('<domain>')
    .argument('[path]', 'the folder', '/')
    .option('-r, --recursive', 'list every file below the folder')
    .option('--json', 'print the listing as JSON')
    .action(async (domain, path, options) => (await import('./commands/files.ts')).listFiles(domain, path, options));
  files
    .command('put')
    .description('add or replace one file')
    .argument('<domain>')
    .argument('<path>', 'the path on the site, e.g. about/index.html')
    .argument('[file]', 'the local file, or - for standard input (default: <path>)')
    .option('--json', 'print the file entry as JSON')
    .action(async (domain, path, file, options) => (await import('./commands/files.ts')).putFile(domain, path, file, options));
  files
    .command('rm')
    .description('remove one file')
    .argument('<domain>')
    .argument('<path>', 'the path on the site')
    .option('--json', 'print what was removed as JSON')
    .action(async (domain, path, options) => (await import('./commands/files.ts')).removeFile(domain, path, options));

  program
    .command('domains')
    .description('proof that you control a domain, asked before its first deploy')
    .command('proof')
    .description('print the DNS record that proves you control a domain, and whether its DNS shows it yet')
    .argument('<domain>')
    .option('--json', 'print the record and its state as JSON')
    .action(async (domain, options) => (await import('./commands/domains.ts')).showProof(domain, options));

  program
    .command('info')
    .description("show a site's metadata: owner, current deployment, certificate")
    .argument('<domain>')
    .option('--json', 'print the metadata as JSON')
    .action(async (domain, options) => (await import('./commands/info.ts')).showInfo(domain, options));

  program
    .command('configurations')
    .description('print every site\'s configuration record as JSON lines, then with --follow every change as it happens (what an edge agent runs); needs global_read')
    .option('--follow', 'after the list, print each change (a record, or {domain, modified, deleted: true}) as it happens')
    .option('--since <cursor>', 'print the changes after this cursor (a {"cursor"} line an earlier run printed) instead of the list')
    .option('--interval <seconds>', 'with --follow, ask for changes at least this often besides when an event hints at one', '30')
    .option('--json', 'JSON lines (the only output of this command)')
    .action(async (options) => (await import('./commands/configurations.ts')).configurationsCommand(options));

  program
    .command('events')
    .description('follow events as they happen (deploys, deletes, configuration, files, certificates); needs global_read')
    .option('--json', 'print each event as one line of JSON, with its id')
    .option('--last-event-id <id>', 'start after this event (resume where an earlier run stopped)')
    .action(async (options) => (await import('./commands/events.ts')).followEventsCommand(options));

  const tokens = program.command('tokens').description('your API tokens: make one for CI, list them with when each was last used, revoke one');
  tokens
    .command('create')
    .description('make an API token; it is printed once, alone on standard output')
    .requiredOption('--name <name>', 'what it is for, e.g. "GitHub Actions of example.com"')
    .option('--scope <scopes>', 'comma-separated scopes, each one your login holds (read is within deploy): deploy, read, global_read, admin', 'deploy')
    .option('--site <domain>', 'limit it to this site, one you own or are a member of (repeat for several; a viewer\'s token: --scope read); without it, all of your sites', (domain: string, all: string[]) => [...all, domain], [] as string[])
    .option('--role <role>', 'with --site: deployer (the default: deploys and edits) or owner (also unpublishes and manages members and trust; sites you own only)')
    .option('--expires <when>', 'days from now (e.g. 30d) or a UTC time (2027-01-31T00:00:00); default 90 days, at most the service\'s cap (365 days)')
    .option('--json', 'print the token and what it holds as JSON')
    .action(async (options) => (await import('./commands/tokens.ts')).createToken(options));
  tokens
    .command('list')
    .description('list your unexpired API tokens, with when each was last used (never their secrets)')
    .option('--json', 'print the list as JSON')
    .action(async (options) => (await import('./commands/tokens.ts')).listTokens(options));
  tokens
    .command('revoke')
    .description('revoke an API token: refused at once here and everywhere within 30 seconds')
    .argument('<id>', 'its id (see `sitehost tokens list`)')
    .option('--json', 'print what was revoked as JSON')
    .action(async (id, options) => (await import('./commands/tokens.ts')).revokeToken(id, options));

  const members = program.command('members').description("who besides you may reach a site: deployers deploy and edit it, viewers read it");
  members
    .command('add')
    .description('give a user a role on your site (again: change it)')
    .argument('<domain>')
    .argument('<userId>', 'their user id, as `sitehost whoami` shows it (e.g. github|12345)')
    .requiredOption('--role <role>', 'deployer or viewer')
    .option('--json', 'print the member as JSON')
    .action(async (domain, userId, options) => (await import('./commands/members.ts')).addMember(domain, userId, options));
  members
    .command('list')
    .description("list a site's owner and members")
    .argument('<domain>')
    .option('--json', 'print the list as JSON')
    .action(async (domain, options) => (await import('./commands/members.ts')).listMembers(domain, options));
  members
    .command('remove')
    .description('take a member off your site')
    .argument('<domain>')
    .argument('<userId>')
    .option('--json', 'print what was removed as JSON')
    .action(async (domain, userId, options) => (await import('./commands/members.ts')).removeMember(domain, userId, options));

  const shares = program.command('share').description("links that let whoever opens them see a protected site or preview, until they expire");
  shares
    .command('link', { isDefault: true })
    .description('print a share link of the site, of one deployment (--deployment) or of an alias (--alias); members may make them')
    .argument('<domain>')
    .option('--deployment <id>', "a kept deployment's own host")
    .option('--alias <alias>', 'an alias host')
    .option('--path <path>', 'where the link lands, e.g. /docs/ (default /)')
    .option('--expires <duration>', "how long it works: 90m, 12h, 7d (default 1 day; at most the service's cap, 30 days)")
    .option('--json', 'print the link as JSON')
    .action(async (domain, options) => (await import('./commands/share.ts')).share(domain, options));
  shares
    .command('revoke')
    .description('stop every share link and password sign-in of your site at once')
    .argument('<domain>')
    .option('--json', 'print what was revoked as JSON')
    .action(async (domain, options) => (await import('./commands/share.ts')).revokeShares(domain, options));
  program
    .command('protect')
    .description("who may open your site's hosts: previews public or members; the site public, members or password")
    .argument('<domain>')
    .option('--previews <who>', 'public or members (members: only through a share link)')
    .option('--site <who>', 'public, members or password')
    .option('--password <password>', "the site's password (with --site password; or SITEHOST_SITE_PASSWORD)")
    .option('--json', 'print the protection as JSON')
    .action(async (domain, options) => (await import('./commands/share.ts')).protect(domain, { ...options, password: options.password ?? process.env.SITEHOST_SITE_PASSWORD }));

  const trust = program.command('trust').description('let a GitHub Actions workflow deploy your site with no stored secret');
  trust
    .command('github')
    .description("trust a repository's workflow: its jobs with `permissions: id-token: write` deploy the site")
    .argument('<domain>')
    .requiredOption('--repository <owner/name>', 'the GitHub repository')
    .requiredOption('--workflow <file>', 'the workflow file, e.g. .github/workflows/deploy.yml (or deploy.yml)')
    .option('--ref <ref>', 'only jobs on this ref, e.g. refs/heads/main')
    .option('--environment <name>', 'only jobs in this deployment environment')
    .option('--repository-id <id>', "the repository's numeric id (default: looked up on GitHub)")
    .option('--repository-owner-id <id>', "its owner's numeric id (default: looked up on GitHub)")
    .option('--json', 'print the policy as JSON')
    .action(async (domain, options) => (await import('./commands/trust.ts')).trustGithub(domain, options));
  trust
    .command('show')
    .description("show a site's GitHub trust policy")
    .argument('<domain>')
    .option('--json', 'print the policy as JSON')
    .action(async (domain, options) => (await import('./commands/trust.ts')).showTrust(domain, options));
  trust
    .command('remove')
    .description('trust no GitHub workflow any more')
    .argument('<domain>')
    .option('--json', 'print what was removed as JSON')
    .action(async (domain, options) => (await import('./commands/trust.ts')).removeTrust(domain, options));

  const admin = program.command('admin').description("operators' commands: suspend, resume or unpublish any site, replay its dead follow-ups, suspend or resume a user (the token needs the admin scope)");
  admin
    .command('suspend')
    .description('suspend a site: its domain and previews answer 451, and its owner cannot change it until it is resumed')
    .argument('<domain>')
    .requiredOption('--reason <text>', 'why, for the owner (shown in `sitehost info`), at most 1,000 characters')
    .option('--json', 'print the suspension as JSON')
    .action(async (domain, options) => (await import('./commands/admin.ts')).suspendSite(domain, options));
  admin
    .command('resume')
    .description("lift a site's suspension: it is served again")
    .argument('<domain>')
    .option('--json', 'print what was resumed as JSON')
    .action(async (domain, options) => (await import('./commands/admin.ts')).resumeSite(domain, options));
  admin
    .command('replay')
    .description("run again a site's follow-ups that spent their attempts (kept as dead letters): events, certificate work, deletions")
    .argument('<domain>')
    .option('--json', 'print how many were replayed as JSON')
    .action(async (domain, options) => (await import('./commands/admin.ts')).replayDeadLetters(domain, options));
  admin
    .command('suspend-user')
    .description('suspend a user: every site of theirs answers 451, and they can claim and change nothing until resumed')
    .argument('<userId>', "the user's id, as their token's subject (github|12345)")
    .requiredOption('--reason <text>', 'why, for the user (shown in `sitehost whoami` and `sitehost info`), at most 1,000 characters')
    .option('--json', 'print the suspension as JSON')
    .action(async (userId, options) => (await import('./commands/admin.ts')).suspendUser(userId, options));
  admin
    .command('resume-user')
    .description("lift a user's suspension: their sites are served again")
    .argument('<userId>')
    .option('--json', 'print what was resumed as JSON')
    .action(async (userId, options) => (await import('./commands/admin.ts')).resumeUser(userId, options));
  admin
    .command('delete')
    .description('unpublish any site, whoever owns it: its files and configuration go, and the domain is free')
    .argument('<domain>')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .option('--json', 'print what was deleted as JSON')
    .action(async (domain, options) => (await import('./commands/sites.ts')).deleteSite(domain, options));

  return program;
}
