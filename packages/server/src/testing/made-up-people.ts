import type { Ids } from '../shared/ids.ts';

/**
 * The people triggers invent for the records they create: made-up names at reserved example
 * addresses (example.com, 555 numbers), so no trigger ever writes a real person's details.
 */

export interface MadeUpPerson {
  firstName: string;
  lastName: string;
  line1: string;
  city: string;
  region: string;
  postalCode: string;
  phoneNumber: string;
}

const PEOPLE: MadeUpPerson[] = [
  person('Mary', 'Jackson', '31 Wind Tunnel Road', 'Hampton', 'VA', '23681', '+1 757-555-0124'),
  person('Edsger', 'Dijkstra', '9 Shortest Path', 'Austin', 'TX', '78712', '+1 512-555-0196'),
  person('Barbara', 'Liskov', '77 Substitution Street', 'Cambridge', 'MA', '02139', '+1 617-555-0150'),
  person('Claude', 'Shannon', '1948 Entropy Lane', 'Ann Arbor', 'MI', '48104', '+1 734-555-0111'),
  person('Hedy', 'Lamarr', '12 Frequency Hop', 'Los Angeles', 'CA', '90028', '+1 323-555-0168'),
];

function person(
  firstName: string,
  lastName: string,
  line1: string,
  city: string,
  region: string,
  postalCode: string,
  phoneNumber: string,
): MadeUpPerson {
  return { firstName, lastName, line1, city, region, postalCode, phoneNumber };
}

/** One of the people, picked by a fresh id, so successive triggers vary. */
export function madeUpPerson(ids: Ids): MadeUpPerson {
  return PEOPLE[parseInt(ids.objectId().slice(0, 8), 16) % PEOPLE.length]!;
}

/**
 * A new e-mail address for the person: a website keeps one contact an address, so each carries
 * a random tag (`mary.jackson+3f9a1c2e@example.com`).
 */
export function madeUpEmail(person: MadeUpPerson, ids: Ids): string {
  const name = `${person.firstName}.${person.lastName}`.toLowerCase();
  return `${name}+${ids.objectId().slice(0, 8)}@example.com`;
}

/** The person's address as an address book holds it (platform-surface 2.6.1). */
export function bookAddress(person: MadeUpPerson) {
  return {
    firstName: person.firstName,
    lastName: person.lastName,
    line1: person.line1,
    line2: null,
    city: person.city,
    region: person.region,
    postalCode: person.postalCode,
    countryCode: 'US',
    phoneNumber: person.phoneNumber,
  };
}

/** The person's address as an order holds it (platform-surface 2.1.3: `address1`, `state`). */
export function orderAddress(person: MadeUpPerson) {
  return {
    firstName: person.firstName,
    lastName: person.lastName,
    address1: person.line1,
    address2: null,
    city: person.city,
    state: person.region,
    countryCode: 'US',
    postalCode: person.postalCode,
    phone: person.phoneNumber,
  };
}
