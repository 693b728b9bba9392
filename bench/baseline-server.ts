/**
 * The baseline of the products and orders benchmarks: a plain Fastify server that answers the
 * same paths as Emporium with the response bytes captured from Emporium, held in memory. No
 * database, no authentication, no logging, no serialization: what is left is the cost of HTTP
 * itself.
 *
 *   BASELINE_BODIES=file.json PORT=8081 node --import tsx bench/baseline-server.ts
 *
 * The file is { "listPath": "/1.1/commerce/products", "list": "<body>", "products": { "<id>":
 * "<body>", ... } }, bodies as JSON text; the items are served at `<listPath>/<id>`.
 */
import fs from 'node:fs';
import Fastify from 'fastify';

interface Bodies {
  listPath?: string;
  list: string;
  products: Record<string, string>;
}

const file = process.env.BASELINE_BODIES;
if (!file) throw new Error('BASELINE_BODIES: the file of captured response bodies is required');
const bodies = JSON.parse(fs.readFileSync(file, 'utf8')) as Bodies;
const list = Buffer.from(bodies.list);
const products = new Map(Object.entries(bodies.products).map(([id, body]) => [id, Buffer.from(body)]));
const JSON_TYPE = 'application/json; charset=utf-8';
const listPath = bodies.listPath ?? '/1.1/commerce/products';

const app = Fastify({ logger: false });
app.get(listPath, async (_request, reply) => reply.type(JSON_TYPE).send(list));
app.get<{ Params: { ids: string } }>(`${listPath}/:ids`, async (request, reply) => {
  const body = products.get(request.params.ids);
  if (!body) return reply.code(404).type(JSON_TYPE).send('{"message":"not captured"}');
  return reply.type(JSON_TYPE).send(body);
});

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : address}\n`);
