/**
 * @emporium/testing: Emporium started from an app's own test suite. Each `startEmporium()` is an
 * isolated instance on a free port of 127.0.0.1, on a database of its own, with its workers in
 * the test process; helpers make sites, API keys and apps, connect an app through the real
 * authorization and consent endpoints, receive its signed webhooks, reset and stop.
 */
import type { EmporiumInstance } from './instance.js';
import { loadHarness } from './server.js';
import type { Connection, EmporiumOptions } from './types.js';
import { WebhookReceiver } from './webhook-receiver.js';

export type {
  App,
  ConnectOptions,
  Connection,
  DemoSite,
  EmporiumOptions,
  LoadedSite,
  Site,
  SiteOptions,
  Tokens,
} from './types.js';
export type {
  EmailFilter,
  EmailKind,
  Fault,
  FaultRule,
  Faults,
  LoggedRequest,
  RequestLogFilter,
  SiteTime,
  StoreEmail,
  Triggered,
  TriggerOptions,
} from './controls.js';
export type { EmporiumInstance } from './instance.js';
export { WebhookReceiver, type Notification, type Subscription } from './webhook-receiver.js';

export async function startEmporium(options: EmporiumOptions = {}): Promise<EmporiumInstance> {
  const { startHarness } = await loadHarness(options.databaseUrl);
  const harness = await startHarness(options);
  const receivers = new Set<WebhookReceiver>();
  return {
    url: harness.url,
    demo: harness.demo,
    site: harness.site,
    loadFixture: (fixture, options) => harness.loadFixture(fixture, options),
    async createSite({ scopes, ...site } = {}) {
      const made = await harness.createSite(site);
      return { ...made, apiKey: await harness.createApiKey(made.websiteId, scopes) };
    },
    createApiKey: (websiteId, scopes, name) => harness.createApiKey(websiteId, scopes, name),
    registerApp: (options) => harness.registerApp(options),
    // The harness keeps the token endpoint's answer as a record; it is that answer (Tokens).
    connect: (app, websiteId, options) => harness.connect(app, websiteId, options) as Promise<Connection>,
    approve: (url, websiteId, options) => harness.approve(url, websiteId, options),
    trigger: (topic, websiteId, options) => harness.trigger(topic, websiteId, options),
    // async: the harness parses `by` before its promise, so a bad one would throw, not reject.
    advanceClock: async (websiteId, by) => harness.advanceClock(websiteId, by),
    siteTime: (websiteId) => harness.siteTime(websiteId),
    requests: (websiteId, filter) => harness.requests(websiteId, filter),
    emails: (websiteId, filter) => harness.emails(websiteId, filter),
    faults: {
      add: (websiteId, rule) => harness.faults.add(websiteId, rule),
      list: (websiteId) => harness.faults.list(websiteId),
      clear: (websiteId, id) => harness.faults.clear(websiteId, id),
    },
    // A getter of the harness: read once, the token does not change while the instance runs.
    testControlsToken: harness.testControlsToken,
    async webhookReceiver() {
      const receiver = await WebhookReceiver.listen(harness.url);
      receivers.add(receiver);
      return receiver;
    },
    reset: () => harness.reset(),
    snapshot: () => harness.snapshot(),
    async stop() {
      await Promise.all([...receivers].map((receiver) => receiver.close()));
      await harness.stop();
    },
  };
}
