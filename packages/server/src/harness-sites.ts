import { randomBytes } from 'node:crypto';
import type { ApiDeps } from './deps.ts';
import { HarnessError } from './harness-browser.ts';
import type { HarnessApp } from './harness-consent.ts';
import { createClient } from './oauth/clients.service.ts';
import { createApiKey as createKey } from './sites/api-keys.service.ts';
import { createOwner } from './sites/owners.service.ts';
import { createWebsite } from './sites/websites.service.ts';

/*
 * What the test harness (harness.ts) makes as a site owner and a developer would: owner and
 * developer accounts with passwords of their own, websites, API keys and apps, each through the
 * services. The harness keeps the accounts it made, so that the consent flow (harness-consent.ts)
 * can sign in as a website's owner.
 */

export interface SiteOptions {
  title?: string;
  currency?: string;
  measurementStandard?: 'IMPERIAL' | 'METRIC';
  timeZone?: string;
  /** An owner this instance made (`site.owner.email`); a new one by default. */
  ownerEmail?: string;
}

export interface HarnessSite {
  websiteId: string;
  storePageId: string;
  /** The owner, with the password the owner pages take. */
  owner: { email: string; password: string };
}

/** The owner and developer accounts one harness made, with the passwords they sign in with. */
export class HarnessAccounts {
  /** The owners, by owner id: those the consent flow can sign in as. */
  readonly owners = new Map<string, { email: string; password: string }>();
  private developer: { email: string; password: string } | undefined;

  constructor(private readonly api: ApiDeps) {}

  /** The owner of `ownerEmail`, which must be one this instance made; a new owner without it. */
  async owner(ownerEmail: string | undefined): Promise<{ email: string; password: string }> {
    return ownerEmail ? this.knownOwner(ownerEmail) : await this.newOwner('owner');
  }

  /** The one developer account the harness registers its apps to, made with the first app. */
  async developerAccount(): Promise<{ email: string; password: string }> {
    this.developer ??= await this.newOwner('developer');
    return this.developer;
  }

  private knownOwner(email: string): { email: string; password: string } {
    const owner = [...this.owners.values()].find((o) => o.email === email);
    if (!owner) throw new HarnessError(`ownerEmail: ${email} is not an owner this instance made`);
    return owner;
  }

  private async newOwner(kind: 'owner' | 'developer'): Promise<{ email: string; password: string }> {
    const email = `${kind}-${randomBytes(6).toString('hex')}@emporium.test`;
    const password = randomBytes(18).toString('base64url');
    const { ownerId } = await createOwner(this.api, { email, password, firstName: 'Test', lastName: kind });
    const owner = { email, password };
    this.owners.set(ownerId, owner);
    return owner;
  }
}

/** A website of a new owner, or of `ownerEmail` (Harness.createSite). */
export async function createSite(
  api: ApiDeps,
  accounts: HarnessAccounts,
  options: SiteOptions,
): Promise<HarnessSite> {
  const owner = await accounts.owner(options.ownerEmail);
  const { websiteId, storePageId } = await createWebsite(api, {
    ownerEmail: owner.email,
    title: options.title ?? 'Test Store',
    currency: options.currency,
    measurementStandard: options.measurementStandard,
    timeZone: options.timeZone,
  });
  return { websiteId, storePageId, owner };
}

/** An API key of the website with these scopes, shown this once (Harness.createApiKey). */
export async function createApiKey(
  api: ApiDeps,
  websiteId: string,
  scopes: readonly string[],
  name: string,
): Promise<string> {
  const { apiKey } = await createKey(api, { websiteId, scopes: scopes.join(','), name });
  return apiKey;
}

/** An app (OAuth client) of the harness's developer account (Harness.registerApp). */
export async function registerApp(
  api: ApiDeps,
  accounts: HarnessAccounts,
  options: { name?: string; redirectUri?: string; initiateUrl?: string },
): Promise<HarnessApp> {
  const developer = await accounts.developerAccount();
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1/callback';
  const { clientId, clientSecret } = await createClient(api, {
    ownerEmail: developer.email,
    name: options.name ?? 'Test App',
    redirectUris: [redirectUri],
    initiateUrl: options.initiateUrl,
  });
  return { clientId, clientSecret, redirectUri };
}
