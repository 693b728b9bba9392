import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimited } from '../shared/errors.ts';

/** Limits are per minute (api-details 2): one fixed window a key, from its first request. */
const WINDOW_MS = 60_000;

/** How many keys an instance counts alone before it forgets the oldest windows (bounded memory). */
const LOCAL_KEYS = 20_000;

/** A key's requests in its current window, this one included, and the milliseconds left of it. */
interface Count {
  count: number;
  ttlMs: number;
}

/** Where counts live: in the process, or in Redis for every instance together. */
interface Counter {
  /** Counts one request of `key`. */
  hit(key: string): Count | Promise<Count>;
}

/**
 * Counts of this instance alone. Answers at once, without a promise: the API's every request
 * counts here (bench/README.md, "Get by id"). Every window has the same length, so the map, in
 * the order windows started, is also in the order they end.
 */
export class LocalCounter implements Counter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = LOCAL_KEYS,
  ) {}

  hit(key: string): Count {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      if (window) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, ttlMs: window.endsAt - now };
  }

  /** Drops the ended windows; if none has ended, the oldest, whose key starts afresh. */
  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) break;
      this.windows.delete(key);
    }
    const oldest = this.windows.keys().next();
    if (this.windows.size >= this.maxKeys && !oldest.done) this.windows.delete(oldest.value);
  }
}

/**
 * The count of one key in a window: the same script and keys as @fastify/rate-limit's Redis store
 * (which counted here before), so instances of the previous release and of this one share their
 * counts during a rolling upgrade.
 */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  ttl = redis.call('PTTL', KEYS[1])
end
return {current, ttl}
`;

type CountingRedis = Redis & {
  emporiumRateCount(key: string, windowMs: number): Promise<[number, number]>;
};

/** Counts shared by every instance through Redis, each key under `nameSpace`. */
export class RedisCounter implements Counter {
  private readonly redis: CountingRedis;

  constructor(
    redis: Redis,
    private readonly nameSpace: string,
  ) {
    if (!('emporiumRateCount' in redis)) {
      redis.defineCommand('emporiumRateCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    }
    this.redis = redis as CountingRedis;
  }

  async hit(key: string): Promise<Count> {
    const [count, ttlMs] = await this.redis.emporiumRateCount(`${this.nameSpace}${key}`, WINDOW_MS);
    return { count, ttlMs };
  }
}

function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/**
 * Per-credential rate limit of the API (api-details 2), and of the token endpoint by address: 429
 * with Retry-After over the limit, and the RateLimit-* headers (the IETF draft's) on every
 * answer. With a Redis client the counts are shared by every instance; without, each instance
 * counts alone. A Redis outage lets requests through rather than failing them.
 *
 * An onRequest hook of the instance, so it runs after the hooks registered before it (the
 * credential's) and before those registered after it (the scope check): a refused call counts.
 * A callback rather than async: counted in the process, a request is not held for a promise.
 *
 * The owner's sign-in and consent forms keep @fastify/rate-limit (admin/admin.plugin.ts): limits of
 * their own per route, by client address with IPv6 addresses grouped by network.
 */
export function registerRateLimit(
  app: FastifyInstance,
  perMinute: number,
  redis?: Redis,
  /** Where the counts live in Redis: each limited endpoint group counts apart. */
  nameSpace = 'emporium:rate:',
): void {
  const counter: Counter = redis ? new RedisCounter(redis, nameSpace) : new LocalCounter();
  const keyOf = (request: FastifyRequest) =>
    request.credential ? `${request.credential.kind}:${request.credential.id}` : `ip:${request.ip}`;

  const answer = (reply: FastifyReply, done: HookHandlerDoneFunction, { count, ttlMs }: Count) => {
    const reset = seconds(ttlMs);
    reply.header('ratelimit-limit', perMinute);
    reply.header('ratelimit-remaining', Math.max(0, perMinute - count));
    reply.header('ratelimit-reset', reset);
    if (count <= perMinute) return done();
    const after = reset === 1 ? '1 second' : `${reset} seconds`;
    done(new RateLimited(`rate limit of ${perMinute} requests a minute reached; retry in ${after}`, reset));
  };

  app.addHook('onRequest', (request, reply, done) => {
    const counted = counter.hit(keyOf(request));
    if (!(counted instanceof Promise)) return answer(reply, done, counted);
    // Redis away: the request passes uncounted, with the whole limit left.
    counted.then(
      (count) => answer(reply, done, count),
      () => answer(reply, done, { count: 0, ttlMs: 0 }),
    );
  });
}
