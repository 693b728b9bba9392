import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { WebsitesTable } from '../db/schema.ts';
import { NotFound } from '../errors.ts';

/** A page that needs a signed-in owner was asked for without one (the error handler redirects). */
export class SignInRequired extends Error {}

export function ownerOf(request: FastifyRequest): { id: string; email: string } {
  if (!request.browser.owner) throw new SignInRequired();
  return request.browser.owner;
}

/** One of the owner's websites; another owner's looks the same as a missing one. */
export async function ownedWebsite(db: Db, ownerId: string, websiteId: string): Promise<WebsitesTable> {
  const website = await db
    .selectFrom('websites')
    .selectAll()
    .where('id', '=', websiteId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
  if (!website) throw new NotFound('There is no such site among yours.');
  return website;
}

export function ownedWebsites(db: Db, ownerId: string): Promise<WebsitesTable[]> {
  return db
    .selectFrom('websites')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at')
    .execute();
}
