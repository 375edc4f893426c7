// Preloaded into the CLI under test (`node --import`): when the process exits, writes its peak
// resident set size as the kernel counts it (getrusage ru_maxrss, KiB: what `time -f %M` shows).
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.SITEHOST_TEST_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));
