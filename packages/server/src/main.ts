import { apiDeps, processMetrics } from './deps.ts';
import {
  DELIVERY_BATCH,
  EMAIL_WORKERS,
  every,
  hourly,
  LOST_IMAGES_MS,
  startInstance,
  type Instance,
} from './instance.ts';
import { systemClock } from './shared/clock.ts';
import type { Config } from './config.ts';
import { sweepOrphanImages } from './catalog/images/image-sweep.ts';
import { imageHandlers, requeueLostImages } from './catalog/images/image-jobs.ts';
import { connect } from './db/connect.ts';
import { serverSecret } from './db/server-secrets.ts';
import { randomIds } from './shared/ids.ts';
import { imageStorage } from './image-storage.ts';
import { Jobs } from './jobs/queue.ts';
import { listenForMetrics } from './metrics/metrics-server.ts';
import { seedDemoSite, type DemoSite } from './seed.ts';
import { websiteUrl } from './shared/store-urls.ts';
import { attemptDelivery, webhookSettings } from './webhooks/delivery.ts';
import { sweepDeliveries } from './webhooks/delivery-sweep.ts';
import { emailSettings } from './emails/email-settings.ts';
import { attemptSend } from './emails/sending.ts';

function printDemo(demo: DemoSite, baseUrl: string, authUrl: string): void {
  // Written to the terminal, not the log: these secrets are shown this once and never logged.
  process.stdout.write(
    [
      '',
      'A demo site was created. The password and API key are shown only now:',
      `  owner     ${demo.email}`,
      `  password  ${demo.password}   (sign in at ${authUrl}/login)`,
      `  website   ${demo.websiteId} (store page ${demo.storePageId})`,
      `  store     ${websiteUrl(baseUrl, demo.websiteId)}`,
      `  API key   ${demo.apiKey}`,
      '',
      `  curl -H "Authorization: Bearer ${demo.apiKey}" -H "User-Agent: curl" ${baseUrl}/1.1/commerce/products`,
      '',
    ].join('\n') + '\n',
  );
}

function printTestControls(token: string, baseUrl: string): void {
  // The terminal again, not the log: a token made for this start, shown this once.
  process.stdout.write(
    [
      'Test controls are on (TEST_CONTROLS; docs/testing-your-app.md). Their token, for this start:',
      `  ${token}`,
      `  curl -X POST -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\`,
      `    -d '{"by":"48h"}' ${baseUrl}/_emporium/websites/WEBSITE_ID/clock/advance`,
      '',
    ].join('\n') + '\n',
  );
}

/** `emporium serve`: database, migrations, demo site, HTTP; a clean stop on SIGTERM or SIGINT. */
export async function serve(config: Config): Promise<void> {
  const connection = await connect(config, 20);
  let instance: Instance;
  try {
    instance = await startInstance({
      config,
      database: connection,
      storage: await imageStorage(config),
      clock: systemClock,
      // Seeded through the services with the server's own dependencies: the demo orders take
      // stock and queue their notifications as any order does.
      beforeListen: async (api) => {
        if (!config.demoSite) return;
        const demo = await seedDemoSite(api);
        if (demo) printDemo(demo, config.baseUrl, config.authUrl);
      },
    });
  } catch (error) {
    await connection.shutdown();
    throw error;
  }
  if (instance.testControlsToken && !config.testControlsToken) {
    printTestControls(instance.testControlsToken, config.baseUrl);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    instance.app.log.info({ signal }, 'shutting down');
    try {
      await instance.stop();
      await connection.shutdown();
      process.exit(0);
    } catch (error) {
      instance.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  // Kept for every signal, not once: Ctrl-C under `npm start` brings SIGINT twice (from the terminal
  // and passed on by npm), and a second one without a listener would kill the process mid-stop.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * `emporium worker`: image jobs, webhook deliveries and (with SMTP_URL) the store's e-mails, no
 * HTTP. With an external PostgreSQL (and image storage every process reaches), workers run on
 * their own machines and scale apart from the API.
 */
export async function work(config: Config): Promise<void> {
  const connection = await connect(config, 5);
  const jobs = new Jobs(connection.url, config.imageJobTimeoutSeconds);
  await jobs.start();
  const deps = { db: connection.db, pool: connection.pool, clock: systemClock };
  const metrics = processMetrics(deps);
  const api = apiDeps({
    ...deps,
    ids: randomIds,
    config,
    metrics,
    cursorKey: await serverSecret(connection.db, 'cursor'),
    storage: await imageStorage(config),
    jobs,
    webhooks: webhookSettings(await serverSecret(connection.db, 'webhook'), config.webhookAllowPrivate),
    emails: emailSettings(config),
  });
  const report = (msg: string) => (error: unknown) =>
    process.stderr.write(`${JSON.stringify({ msg, err: String(error) })}\n`);
  const sweepers = [
    hourly(() => sweepOrphanImages(api), report('image sweep failed')),
    hourly(() => sweepDeliveries(api), report('sweep of webhook deliveries failed')),
    every(
      LOST_IMAGES_MS,
      () => requeueLostImages(api),
      report('queuing again the images of dead workers failed'),
    ),
  ];
  // Without METRICS_PORT the worker listens nowhere; the queue metrics are the same on every serve
  // instance. Opened before any job is taken, so that a port in use stops start-up first.
  const listener =
    config.metricsPort === undefined
      ? undefined
      : await listenForMetrics(metrics, {
          host: config.host,
          port: config.metricsPort,
          token: config.metricsToken,
        });
  const workers = Math.max(1, config.imageWorkers);
  await jobs.workImages(workers, imageHandlers(api));
  await jobs.workDeliveries(config.webhookWorkers, DELIVERY_BATCH, (job) => attemptDelivery(api, job));
  if (api.emails.smtp) await jobs.workEmails(EMAIL_WORKERS, (job) => attemptSend(api, job));
  const address = listener?.server.address();
  process.stdout.write(
    `emporium worker: ${workers} image worker${workers === 1 ? '' : 's'}, ${config.webhookWorkers} webhook delivery poller${config.webhookWorkers === 1 ? '' : 's'} started${typeof address === 'object' && address ? `; metrics on port ${address.port}` : ''}\n`,
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    sweepers.forEach(clearInterval);
    await listener?.close();
    await jobs.stop(); // the job in hand finishes; an unfinished one is handed out again
    await connection.shutdown();
    process.exit(0);
  };
  // Every signal, as for serve: a repeated SIGINT must not cut the stop short.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
