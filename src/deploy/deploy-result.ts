/**
 * The deploy result: the response of `PUT /v2/sites/<domain>` and its notification (spec §2).
 * Depends on nothing, so the dashboard (dashboard/src) shares it with the Worker.
 */
export interface DeployResult {
  type: 'site-deploy';
  domain: string;
  isNewDomain: boolean;
  hasNewFiles: boolean;
  hasNewConfiguration: boolean;
}
