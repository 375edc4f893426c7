import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import type { DomainProof } from '../../src/common/api-types.ts';
import { connect } from '../credentials.ts';
import { checkedDomain } from '../domain.ts';
import { printJson } from '../format.ts';

/** `sitehost domains proof <domain>`: the DNS record that proves you control the domain, and whether its DNS shows it yet. */
export async function showProof(input: string, options: { json?: boolean }): Promise<void> {
  const domain = checkedDomain(input);
  const api = await connect();
  const proof = await api.json<DomainProof>(`/v2/domains/${encodeURIComponent(domain)}/proof`);
  if (options.json) return printJson(proof);
  if (!proof.required) {
    console.log(`${pc.green('✔')} ${pc.bold(terminalSafe(proof.domain))} needs no proof of control from you here: deploy to it.`);
    return;
  }
  console.log(`Add this DNS record to prove you control ${pc.bold(terminalSafe(proof.domain))}:\n`);
  for (const [name, value] of [['name', proof.name], ['type', proof.type], ['value', proof.value]] as const) console.log(`  ${pc.dim(name.padEnd(6))}${terminalSafe(value)}`);
  console.log(
    proof.verified
      ? `\n${pc.green('✔')} Verified: the DNS shows it. Your first deploy to ${terminalSafe(proof.domain)} claims it; the record can go afterwards.`
      : `\n${pc.yellow('…')} Not visible in DNS yet. A new record shows within minutes (a name asked about before, once its TTL is over); run this again to check.`,
  );
}
