/**
 * Global setup of the node project, after ./migrated-state.ts and ./worker-bundle.ts: one service
 * with wrangler.toml's settings, for every test file that needs no settings of its own
 * (`sharedService()` in ./service.ts). Each start of a service costs about a CPU-second (workerd
 * starts, the Worker's modules load), so files share this one rather than each starting its own.
 *
 * It starts in the background: the other projects' files run meanwhile, and a file that asks for
 * it waits until it is ready. Its address and secret are then written to `service.json` in the
 * provided folder (or why it failed to `failed`), its output to `output.log`. At the end it is
 * stopped, and the run fails if it answered the API with a status schema/openapi.json does not list.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type Service, startService } from './service';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where the shared service says where it listens (`service.json`) once it is ready. */
    sharedService: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'sitehost-shared-service-'));
  project.provide('sharedService', folder);
  const { migratedState, workerBundle } = project.getProvidedContext();
  const logFile = join(folder, 'output.log');
  const starting: Promise<Service | undefined> = startService({ migratedState, workerBundle, logFile }).then(
    async (service) => {
      const { origin, port, secret } = service;
      // Written whole, then renamed: a file waiting for it must never read it half written.
      await writeFile(join(folder, 'service.json.part'), JSON.stringify({ origin, port, secret, logFile }));
      await rename(join(folder, 'service.json.part'), join(folder, 'service.json'));
      return service;
    },
    async (error: unknown) => {
      await writeFile(join(folder, 'failed'), error instanceof Error ? (error.stack ?? error.message) : String(error));
      return undefined;
    },
  );
  return async () => {
    const service = await starting;
    // Its stop() checks its answers against schema/openapi.json, as a service a test file starts does.
    try {
      await service?.stop();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  };
}
