import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandling } from '../http/error-handler.ts';
import type { Metrics } from './metrics.ts';
import { metricsRoutes } from './metrics.routes.ts';

/**
 * The `emporium worker`'s own listener (METRICS_PORT), which has no other HTTP: `/metrics` with the
 * same access rule and error bodies as on `emporium serve`, and nothing else.
 */
export async function listenForMetrics(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  await app.register(metricsRoutes, { metrics, token: options.token });
  await app.listen({ host: options.host, port: options.port });
  return app;
}
