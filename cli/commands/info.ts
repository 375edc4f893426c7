import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { formatTimestamp, printJson } from '../format.ts';
import type { SiteInfo } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import { siteUrl } from '../../src/common/site-url.ts';

function describeCertificate(certificate: SiteInfo['certificate']): string {
  if (!certificate?.status) return 'none';
  const details = [
    certificate.issued ? `issued ${formatTimestamp(certificate.issued)}` : '',
    certificate.expires ? `expires ${formatTimestamp(certificate.expires)}` : '',
    terminalSafe(certificate.reason ?? ''),
  ].filter(Boolean);
  return details.length ? `${certificate.status} (${details.join(', ')})` : certificate.status;
}

export async function showInfo(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const info = await api.json<SiteInfo>(sitePath(domain, '/info'));
  if (options.json) return printJson(info);
  const deployment = info.deployment
    ? `${info.deployment.fileCount} files, ${formatBytes(info.deployment.totalBytes)}, created ${formatTimestamp(info.deployment.created)} (${terminalSafe(info.deployment.id)})`
    : 'none';
  const metadata = Object.entries(info.metadata);
  const lines: [string, string][] = [
    ['domain', pc.bold(terminalSafe(info.domain))],
    ['url', terminalSafe(siteUrl(new URL(api.origin), info.domain))],
    ['owner', terminalSafe(info.userId)],
    ['created', formatTimestamp(info.created)],
    ['modified', formatTimestamp(info.modified)],
    ['deployment', deployment],
    ['certificate', describeCertificate(info.certificate)],
    // Metadata and reasons are other people's text: every control character is shown escaped, never sent to the terminal.
    ['metadata', metadata.length ? metadata.map(([key, value]) => terminalSafe(`${key}=${value}`)).join(', ') : '-'],
    ...(info.suspension ? [['suspended', pc.red(`since ${formatTimestamp(info.suspension.since)}: ${terminalSafe(info.suspension.reason)}`)] as [string, string]] : []),
    ...(info.userSuspension
      ? [['owner held', pc.red(`the owner is suspended since ${formatTimestamp(info.userSuspension.since)}: ${terminalSafe(info.userSuspension.reason)}`)] as [string, string]]
      : []),
  ];
  for (const [name, value] of lines) console.log(`${pc.dim(name.padEnd(12))}${value}`);
}
