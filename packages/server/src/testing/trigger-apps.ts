import { listConnectedApps } from '../oauth/connected-apps.ts';
import { revokeAccess } from '../oauth/revocation.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Topic } from '../webhooks/topics.ts';
import type { TopicTrigger } from './trigger-kinds.ts';

/** An app losing its access, as when the owner disconnects it on the connected apps page. */
export const APP_TRIGGERS = {
  'extension.uninstall': {
    options: ['clientId'],
    async run(deps, websiteId, options) {
      // Tokens expire in the service's time, as every OAuth time.
      const apps = await listConnectedApps(deps.db, websiteId, deps.clock.now());
      const listed = apps.map((app) => `${app.clientId} (${app.name})`).join(', ');
      let clientId = options.clientId;
      if (clientId !== undefined && !apps.some((app) => app.clientId === clientId)) {
        throw new NotFound(
          `app ${clientId} is not connected to website ${websiteId}; connected: ${listed || 'none'}`,
        );
      }
      if (clientId === undefined) {
        if (apps.length === 0) {
          throw new ValidationError(
            `no app is connected to website ${websiteId}: connect one (the owner's Allow) first`,
          );
        }
        if (apps.length > 1) {
          throw new ValidationError(
            `${apps.length} apps are connected to website ${websiteId}; name one with clientId: ${listed}`,
          );
        }
        clientId = apps[0]!.clientId;
      }
      const grantsRevoked = await revokeAccess(deps, { websiteId, clientId });
      return { changed: { clientId, grantsRevoked }, data: { clientId } };
    },
  },
} satisfies Partial<Record<Topic, TopicTrigger>>;
