import { listRequests, type LoggedRequest, type StatusClass } from './api-log/requests.service.ts';
import { emailJson, listEmails, type EmailFilter } from './emails/emails.read.ts';
import { addFault, clearFaults, listFaults, removeFault } from './faults/faults.service.ts';
import type { Fault, FaultInput } from './faults/faults.service.ts';
import type { Instance } from './instance.ts';
import { parseDuration } from './shared/duration.ts';
import { advanceClock as advanceSiteClock, siteTime as readSiteTime } from './testing/site-clock.ts';
import type { SiteTime } from './testing/site-clock.ts';

/*
 * The test controls of the harness (harness.ts): a website's clock, its injected faults, its
 * request log and the e-mails its store sent. They act through the same services as the CLI and
 * the controls over HTTP, and what they change is recorded as done by the harness.
 */

/** The running instance the controls act on: its services, and its app for the request log. */
export type ControlledInstance = Pick<Instance, 'api' | 'app'>;

/** An e-mail the store sent (emails()), its times as Dates. */
export type StoreEmail = Omit<ReturnType<typeof emailJson>, 'createdOn' | 'sentOn'> & {
  createdOn: Date;
  sentOn: Date | null;
};

/** Which of a site's logged requests requests() returns (api-log/requests.service.ts). */
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

/** A website's injected faults as the harness handles them (Harness.faults). */
export interface HarnessFaults {
  add(websiteId: string, rule: FaultInput): Promise<Fault>;
  list(websiteId: string): Promise<Fault[]>;
  /** One rule by its id, or every rule of the website. */
  clear(websiteId: string, id?: string): Promise<{ removed: number }>;
}

/** The website's clock moved ahead by `by`, a duration (`'48h'`) or milliseconds (Harness.advanceClock). */
export async function advanceClock(
  instance: ControlledInstance,
  websiteId: string,
  by: string | number,
): Promise<SiteTime> {
  const ms = typeof by === 'number' ? by : parseDuration(by, 'by');
  return advanceSiteClock(instance.api, websiteId, ms, 'harness');
}

/** The website's time now (Harness.siteTime). */
export function siteTime(instance: ControlledInstance, websiteId: string): Promise<SiteTime> {
  return readSiteTime(instance.api, websiteId);
}

/** The website's request log, newest first, after the lines still in memory are written (Harness.requests). */
export async function requests(
  instance: ControlledInstance,
  websiteId: string,
  filter: RequestLogFilter,
): Promise<LoggedRequest[]> {
  await instance.app.apiLog.flush();
  const { apiKey, status, ...rest } = filter;
  const page = await listRequests(instance.api.db, websiteId, {
    ...rest,
    apiKeyId: apiKey,
    statusClass: status,
  });
  return page.requests;
}

/** The e-mails the website's store sent, oldest first (Harness.emails). */
export async function emails(
  instance: ControlledInstance,
  websiteId: string,
  filter: EmailFilter,
): Promise<StoreEmail[]> {
  const rows = await listEmails(instance.api.db, websiteId, filter);
  return rows.map((row) => {
    const json = emailJson(row);
    return { ...json, createdOn: row.created_on, sentOn: row.sent_on };
  });
}

/** The website's injected faults, each change recorded as the harness's (Harness.faults). */
export function faults(instance: ControlledInstance): HarnessFaults {
  return {
    add: (websiteId, rule) => addFault(instance.api, websiteId, rule, 'harness'),
    list: (websiteId) => listFaults(instance.api, websiteId),
    clear: (websiteId, id) =>
      id
        ? removeFault(instance.api, websiteId, id, 'harness')
        : clearFaults(instance.api, websiteId, 'harness'),
  };
}
