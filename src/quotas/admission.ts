/**
 * The Worker's side of the quotas: before a deploy's body is read, one D1 batch records the deploy
 * (DEPLOYS_PER_HOUR) and reads what the user stores, so that a deploy over a quota is refused at
 * once, and one that goes over while its body streams in is refused at the byte that does. The
 * domain's coordinator checks again, authoritatively, when it commits (./reservation.ts).
 */
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import type { UserQuotas } from '../platform/settings';
import { type Usage, beginDeploy, forgetDeploy, readUsage } from '../storage/usage-ledger';
import { tooManyBytes, tooManyDeploys, tooManySites, userQuotas } from './user-quotas';

/**
 * What the user may still store, as read before the body: the quota less what is stored and
 * reserved, plus what the domain stores (the most its commit can free, collecting deployments that
 * fall out of the kept window), so that this early check never refuses what the commit would take.
 */
export class StorageRoom {
  constructor(
    private readonly quotas: UserQuotas,
    private readonly usage: Usage,
  ) {}

  /** Bytes the user may still store. */
  get left(): number {
    return Math.max(0, this.quotas.maxBytes - this.usage.bytes - this.usage.reservedBytes + this.usage.domainBytes);
  }

  /** 403 naming MAX_USER_BYTES when `adding` bytes more do not fit. */
  check(adding: number): void {
    if (adding > this.left) throw tooManyBytes(this.quotas, this.usage, adding);
  }
}

/** What the user may still store, for a request that adds bytes to `domain`'s deploy already begun. */
export async function storageRoom(env: Env, userId: string, domain: string): Promise<StorageRoom> {
  return new StorageRoom(userQuotas(env), await readUsage(env.DB, userId, domain));
}

/** A deploy asked to begin: recorded when within the quotas, else the problem that refuses it. */
export class DeployAdmission {
  readonly room: StorageRoom;
  #bodyRead = false;

  constructor(
    private readonly env: Env,
    private readonly id: string,
    private readonly refusal: Problem | undefined,
    quotas: UserQuotas,
    usage: Usage,
  ) {
    this.room = new StorageRoom(quotas, usage);
  }

  /** Throws the quota's problem when the deploy may not begin: called after the access checks, whose 403 comes first. */
  check(): void {
    if (this.refusal) throw this.refusal;
  }

  /** The deploy begins to read its body: from here it counts against DEPLOYS_PER_HOUR, whatever its outcome. */
  readonly reading = (): void => {
    this.#bodyRead = true;
  };

  /**
   * Runs the deploy. One refused (a problem) before its body was read does not count against
   * DEPLOYS_PER_HOUR; once the body is read it counts, refused or not, so that a body sent again
   * and again to be refused at its end is limited like any deploy.
   */
  async run<T>(deploy: () => Promise<T>): Promise<T> {
    try {
      return await deploy();
    } catch (error) {
      if (error instanceof Problem && !this.refusal && !this.#bodyRead) await forgetDeploy(this.env.DB, this.id);
      throw error;
    }
  }
}

/** Asks to begin a deploy of `domain` by `userId`; the answer refuses it when DEPLOYS_PER_HOUR or, for a new domain, MAX_SITES_PER_USER is reached. */
export async function admitDeploy(env: Env, domain: string, userId: string): Promise<DeployAdmission> {
  const quotas = userQuotas(env);
  const id = crypto.randomUUID();
  const { begun, usage } = await beginDeploy(env.DB, id, userId, domain, quotas);
  const refusal = begun ? undefined : usage.deploysLastHour >= quotas.deploysPerHour ? tooManyDeploys(quotas, usage) : tooManySites(quotas, usage);
  return new DeployAdmission(env, id, refusal, quotas, usage);
}
