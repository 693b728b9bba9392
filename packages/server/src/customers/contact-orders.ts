import type { Db } from '../db/database.ts';
import { checkContactId } from './contacts.service.ts';
import { selectContactOrders, type ContactOrderRow } from './contact-orders.repo.ts';

/** How many of a contact's orders its owner page lists; older ones are in the order list. */
export const CONTACT_ORDERS = 50;

/** The contact's latest orders, for the owner's contact page. */
export function contactOrders(
  deps: { db: Db },
  websiteId: string,
  contactId: string,
): Promise<ContactOrderRow[]> {
  return selectContactOrders(deps.db, websiteId, checkContactId(contactId), CONTACT_ORDERS);
}
