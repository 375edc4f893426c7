import cliPackage from './package.json' with { type: 'json' };

/** The CLI package's version, for `--version`, the User-Agent and the Sitehost-Client header. */
export const version: string = cliPackage.version;
