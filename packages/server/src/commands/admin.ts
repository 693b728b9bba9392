import { createOrder } from '../orders/orders.service.ts';
import { sampleOrderDraft } from '../orders/sample-order.ts';
import { NotFound } from '../shared/errors.ts';
import { createApiKey, revokeApiKey } from '../sites/api-keys.service.ts';
import { createOwner } from '../sites/owners.service.ts';
import { createWebsite } from '../sites/websites.service.ts';
import { createStorePage } from '../sites/store-pages.service.ts';
import { createClient } from '../oauth/clients.service.ts';
import { revokeAccess } from '../oauth/revocation.ts';
import type { CommandGroup } from './command.ts';

/** `emporium admin ...`: owners, websites, keys, apps and sample orders, for operators. */
export const ADMIN: CommandGroup = {
  'create-owner': {
    synopsis: '--email E --password P [--first-name F --last-name L]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
    required: ['email', 'password'],
    run: (deps, v) =>
      createOwner(deps, {
        email: v.email!,
        password: v.password!,
        firstName: v['first-name'],
        lastName: v['last-name'],
      }),
  },
  'create-website': {
    synopsis: '--owner E --title T [--currency USD] [--measurement-standard IMPERIAL|METRIC]',
    options: {
      owner: { type: 'string' },
      title: { type: 'string' },
      currency: { type: 'string' },
      'measurement-standard': { type: 'string' },
    },
    required: ['owner', 'title'],
    run: (deps, v) =>
      createWebsite(deps, {
        ownerEmail: v.owner!,
        title: v.title!,
        currency: v.currency,
        measurementStandard: v['measurement-standard'],
      }),
  },
  'create-store-page': {
    synopsis: '--website ID --title T',
    options: { website: { type: 'string' }, title: { type: 'string' } },
    required: ['website', 'title'],
    run: (deps, v) => createStorePage(deps, { websiteId: v.website!, title: v.title! }),
  },
  'create-api-key': {
    synopsis: '--website ID --scopes S1,S2 [--name N]',
    options: { website: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
    required: ['website', 'scopes'],
    run: async (deps, v) => {
      const { apiKey } = await createApiKey(deps, { websiteId: v.website!, scopes: v.scopes!, name: v.name });
      return { apiKey };
    },
  },
  'revoke-api-key': {
    synopsis: '--api-key K',
    options: { 'api-key': { type: 'string' } },
    required: ['api-key'],
    run: async (deps, v) => {
      if (!(await revokeApiKey(deps, v['api-key']!))) throw new NotFound('no live API key matches');
      return { revoked: true };
    },
  },
  'create-client': {
    synopsis: '--owner E --name N --redirect-uri U [--redirect-uri U2 ...] [--initiate-url U]',
    options: {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'initiate-url': { type: 'string' },
    },
    required: ['owner', 'name', 'redirect-uri'],
    run: (deps, v, lists) =>
      createClient(deps, {
        ownerEmail: v.owner!,
        name: v.name!,
        redirectUris: lists['redirect-uri']!,
        initiateUrl: v['initiate-url'],
      }),
  },
  'revoke-access': {
    synopsis: '--website ID --client ID',
    options: { website: { type: 'string' }, client: { type: 'string' } },
    required: ['website', 'client'],
    run: async (deps, v) => {
      await revokeAccess(deps, { websiteId: v.website!, clientId: v.client! });
      return { revoked: true };
    },
  },
  'create-order': {
    synopsis: '--website ID',
    options: { website: { type: 'string' } },
    required: ['website'],
    run: async (deps, v) => {
      const draft = await sampleOrderDraft(deps, v.website!, deps.clock.now(v.website!));
      const { json } = await createOrder(deps, v.website!, draft);
      return json;
    },
  },
};
