/**
 * A model-based test of the refresh rotation (api-details 8): random sequences of refreshes, API
 * calls, replays of old tokens, revocations and clock moves, run against the token endpoint and
 * the API, and compared step by step with a small reference model of the rule.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { revokeAccess } from '../src/oauth/revocation.ts';
import { apiCall, grantTokens, oauthTestApp, refresh, type App } from './helpers/oauth.ts';
import type { Site, TestContext } from './helpers/test-app.ts';

const MINUTE = 60_000;
const ACCESS_MS = 30 * MINUTE;
const REFRESH_MS = 7 * 24 * 60 * MINUTE;

/** One pair as the model knows it. */
interface Pair {
  parent: number | null;
  issuedAt: number;
  confirmed: boolean;
  retired: 'confirmed' | 'sibling' | null;
  accessRevoked: boolean;
}

/** The rule, in a few lines: what the service must answer and how its state moves. */
class Model {
  pairs: Pair[] = [{ parent: null, issuedAt: 0, confirmed: true, retired: null, accessRevoked: false }];
  now = 0;
  revoked = false;

  private confirm(index: number): void {
    const pair = this.pairs[index]!;
    if (pair.confirmed) return;
    pair.confirmed = true;
    if (pair.parent === null) return;
    const parent = this.pairs[pair.parent]!;
    parent.retired ??= 'confirmed';
    this.pairs.forEach((sibling, i) => {
      if (i !== index && sibling.parent === pair.parent && sibling.retired === null) {
        sibling.retired = 'sibling';
        sibling.accessRevoked = true;
      }
    });
  }

  /** 200 with the new pair's index, or 400. */
  refresh(index: number): { status: 200; pair: number } | { status: 400 } {
    const pair = this.pairs[index]!;
    if (this.revoked || pair.issuedAt + REFRESH_MS <= this.now) return { status: 400 };
    if (pair.retired) {
      if (pair.retired === 'confirmed') this.revoked = true;
      return { status: 400 };
    }
    this.confirm(index);
    const waiting = this.pairs.filter((p) => p.parent === index && !p.confirmed && p.retired === null);
    if (waiting.length >= 5) return { status: 400 };
    this.pairs.push({
      parent: index,
      issuedAt: this.now,
      confirmed: false,
      retired: null,
      accessRevoked: false,
    });
    return { status: 200, pair: this.pairs.length - 1 };
  }

  call(index: number): 200 | 401 {
    const pair = this.pairs[index]!;
    if (this.revoked || pair.accessRevoked || pair.issuedAt + ACCESS_MS <= this.now) return 401;
    this.confirm(index);
    return 200;
  }
}

interface Real {
  tokens: { access: string; refresh: string }[];
}

let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

/** Picks one of the pairs issued so far, whatever their count. */
const pairOf = (model: Model, pick: number) => pick % model.pairs.length;

class Refresh implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const index = pairOf(model, this.pick);
    const expected = model.refresh(index);
    const res = await refresh(ctx, app, real.tokens[index]!.refresh);
    assert.equal(res.statusCode, expected.status, `refresh of pair ${index}: ${res.body}`);
    if (expected.status === 200) {
      const body = res.json();
      real.tokens[expected.pair] = { access: body.access_token, refresh: body.refresh_token };
    }
  }
  toString = () => `refresh(${this.pick})`;
}

class Call implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const index = pairOf(model, this.pick);
    const expected = model.call(index);
    const res = await apiCall(ctx, real.tokens[index]!.access);
    assert.equal(res.statusCode, expected, `API call with pair ${index}`);
  }
  toString = () => `call(${this.pick})`;
}

class Revoke implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model) {
    model.revoked = true;
    await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });
  }
  toString = () => 'revoke';
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model) {
    // Whole steps of ten minutes or more: the service's clock also moves 1 ms on each reading,
    // which then always lands just past a boundary the model reaches exactly.
    model.now += this.ms;
    ctx.clock.advance(this.ms);
  }
  toString = () => `wait(${this.ms / MINUTE} min)`;
}

/** Mostly refreshes and calls (replays are refreshes of older pairs); now and then a revocation. */
const commands = [
  fc.oneof(
    { weight: 6, arbitrary: fc.nat({ max: 1_000 }).map((pick) => new Refresh(pick)) },
    { weight: 6, arbitrary: fc.nat({ max: 1_000 }).map((pick) => new Call(pick)) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(10, 20, 30, 60, 24 * 60, 7 * 24 * 60)
        .map((minutes) => new Wait(minutes * MINUTE)),
    },
    { weight: 1, arbitrary: fc.constant(new Revoke()) },
  ),
];

test('refresh rotation: random refreshes, calls, replays, revocations and clock moves match the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (cmds) => {
      const first = await grantTokens(ctx, app, site.websiteId);
      const real: Real = { tokens: [{ access: first.access_token, refresh: first.refresh_token! }] };
      const model = new Model();
      // The model counts time from the grant; the service's clock keeps its own origin.
      await fc.asyncModelRun(() => ({ model, real }), cmds);
    }),
    { numRuns: 100 },
  );
});
