import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { connect } from '../credentials.ts';
import { printJson, table } from '../format.ts';
import type { Quota, Usage } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';

/** `3 of 100 (3 %)`, in red from 90 %: how near the quota is. */
function share(quota: Quota, format: (value: number) => string = String): string {
  const percent = Math.floor((quota.used / quota.limit) * 100);
  const text = `${format(quota.used)} of ${format(quota.limit)} (${percent} %)`;
  return percent >= 90 ? pc.red(text) : text;
}

export async function showUsage(options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const usage = await api.json<Usage>('/v2/usage');
  if (options.json) return printJson(usage);
  const rows = [
    ['sites', share(usage.sites), terminalSafe(usage.sites.setting)],
    ['storage', share(usage.bytes, formatBytes), terminalSafe(usage.bytes.setting)],
    ['deploys', `${share(usage.deploysPerHour)} in the last hour`, terminalSafe(usage.deploysPerHour.setting)],
  ];
  console.log(table(['QUOTA', 'USED', 'SETTING'], rows));
}
