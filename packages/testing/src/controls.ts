/*
 * The types of the test controls (a site's triggers, clock, request log, e-mails and injected
 * faults), taken from the server module that defines each rather than from the harness, whose
 * types would bring the whole service into an app's type check. `#server/...` names the server's
 * sources when this package compiles (tsconfig.json "paths") and, in the built declarations, their
 * declarations in dist/server (package.json "imports"; tsconfig.server-types.json writes them).
 * The few types written here are the harness's own (harness-controls.ts, testing/triggers.ts),
 * built on the server's parts; startEmporium() checks the harness's answers against them.
 */
import type { EmailKind } from '#server/db/emails-schema.ts';
import type { emailJson } from '#server/emails/emails.read.ts';
import type { FAULT_STATUSES, FaultInput } from '#server/faults/fault-input.ts';
import type { Fault } from '#server/faults/faults.service.ts';
import type { StatusClass } from '#server/api-log/requests.service.ts';
import type { Changed } from '#server/testing/trigger-kinds.ts';

// The server's own types, as its test controls take and answer them: what trigger() may name (each
// as the CLI's flag is: `--order` is `orderId`, docs/triggers.md), a website's time (its clock,
// which advanceClock() moves ahead of the service's), one request of a site's log (secrets
// removed, each body cut at 16 KB), which e-mails emails() returns, the kinds of e-mail a store
// sends its shoppers, and a fault rule as held (the rule, its seed, what remains of its count).
export type { TriggerOptions } from '#server/testing/trigger-kinds.ts';
export type { SiteTime } from '#server/testing/site-clock.ts';
export type { LoggedRequest } from '#server/api-log/requests.service.ts';
export type { EmailFilter } from '#server/emails/emails.read.ts';
export type { EmailKind, Fault };

/** What a trigger changed, and how many notifications it queued. */
export interface Triggered {
  /** The topic, as trigger() was given it. */
  topic: string;
  websiteId: string;
  /** The ids (and values) the change made or changed. */
  changed: Changed;
  notifications: { queued: number; note?: string };
}

/**
 * An e-mail the store sent a shopper (emails()): the test controls' answer, its times as Dates.
 * Its HTML escapes every value of the store and shopper; its status is NOT_SENT unless the
 * instance has SMTP_URL.
 */
export type StoreEmail = Omit<ReturnType<typeof emailJson>, 'createdOn' | 'sentOn'> & {
  /** When it was written, in the website's time (with the change it tells of). */
  createdOn: Date;
  sentOn: Date | null;
};

/** Which logged requests requests() returns; every field narrows. */
export interface RequestLogFilter {
  /** An app's requests, by its client id. */
  app?: string;
  /** An API key's requests, by its id. */
  apiKey?: string;
  status?: StatusClass;
  /** Paths (with their query) that start with this. */
  path?: string;
  contextId?: string;
  /** At most 100; 50 by default. */
  limit?: number;
}

/**
 * An injected fault (faults.add()): requests of the website that match it are answered with an
 * error, late, slowly or not at all. Give exactly one effect: `status`, `latency`, `reset` or
 * `slowBody`. The server's rule, with the statuses and `reset` it takes.
 */
export interface FaultRule extends Omit<FaultInput, 'status' | 'reset'> {
  /** Answer with this status in the API's error body. */
  status?: (typeof FAULT_STATUSES)[number];
  /** Close the connection without an answer: the app sees a socket hang up. */
  reset?: true;
}

/** A website's injected faults. */
export interface Faults {
  /** Adds a rule; a wrong one is refused (a ValidationError naming the field) and nothing is added. */
  add(websiteId: string, rule: FaultRule): Promise<Fault>;
  /** The website's rules, oldest first. */
  list(websiteId: string): Promise<Fault[]>;
  /** Removes one rule by its id, or every rule of the website. */
  clear(websiteId: string, id?: string): Promise<{ removed: number }>;
}
