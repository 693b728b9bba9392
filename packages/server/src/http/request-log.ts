import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { requestLogSerializer } from './log-redaction.ts';

/** pino's number for the info level. */
const INFO = 30;
/** Levels at which the line is not written. The service's level is set once, at start. */
const ABOVE_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

/**
 * One line a request, written once its answer is sent: the line pino writes for
 * `request.log.info({ req, status, ms }, 'request')` with the service's logger (its level, time,
 * pid, hostname and contextId, the request as requestLogSerializer gives it, RS-6), built here
 * from a template and written to the log's stream directly. Through pino (the child's
 * bindings, the serializer, a string built field by field and flattened later) it was a tenth of
 * get by id's CPU (bench/README.md, "Get by id"); a test in http.test.ts compares the two lines.
 *
 * A callback hook, not async: no promise and no turn of the microtask queue a request.
 */
export function registerRequestLog(app: FastifyInstance, stream: { write(line: string): unknown }): void {
  if (ABOVE_INFO.has(app.log.level)) return;
  // What every line shares is serialized once; only the request's own fields are, a line.
  const head = `{"level":${INFO},"time":`;
  const beforeId = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())},"contextId":`;
  app.addHook('onResponse', (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    stream.write(
      `${head}${Date.now()}${beforeId}${JSON.stringify(request.id)},"req":${JSON.stringify(requestLogSerializer(request))},"status":${reply.statusCode},"ms":${ms},"msg":"request"}\n`,
    );
    done();
  });
}
