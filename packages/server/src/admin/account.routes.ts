import type { FastifyPluginAsync } from 'fastify';
import { recordAudit } from '../sites/audit.ts';
import { DomainError } from '../shared/errors.ts';
import { createOwner, ownerSignIn } from '../sites/owners.service.ts';
import { hashPassword, verifyPassword } from '../sites/passwords.ts';
import { html, type Html } from '../pages/html.ts';
import { page, sendPage } from './layout.ts';
import { requireCsrf } from './session.ts';
import { internalPath, type AdminDeps } from './admin-deps.ts';
import { notice } from '../pages/notice.ts';
import { field } from '../pages/forms.ts';

/** Compared against when the email is unknown, so both failures take as long (security GR-4). */
let unknownOwnerHash: Promise<string> | undefined;

/** The sign-in or the sign-up form: the same fields, each with its password rule and a way to the other. */
function accountForm(
  kind: 'signIn' | 'signUp',
  csrf: string,
  next: string,
  error?: string,
  given: { email?: string; firstName?: string; lastName?: string } = {},
): Html {
  const signIn = kind === 'signIn';
  const onward = encodeURIComponent(next);
  const email = given.email ?? '';
  return html`${notice(error)}
    <form class="stack" method="post" action="${signIn ? '/login' : '/signup'}">
      <input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="next" value="${next}" />
      ${
        signIn
          ? ''
          : html`<label
                >First name
                <input
                  name="firstName"
                  value="${given.firstName ?? ''}"
                  autocomplete="given-name"
                  maxlength="100"
              /></label>
              <label
                >Last name
                <input
                  name="lastName"
                  value="${given.lastName ?? ''}"
                  autocomplete="family-name"
                  maxlength="100"
              /></label>`
      }
      <label
        >Email <input type="email" name="email" value="${email}" autocomplete="username" required
      /></label>
      <label
        >${signIn ? 'Password' : 'Password (8 characters or more)'}
        <input
          type="password"
          name="password"
          autocomplete="${signIn ? 'current-password' : 'new-password'}"
          ${signIn ? '' : html`minlength="8"`}
          required
      /></label>
      <div class="actions"><button>${signIn ? 'Sign in' : 'Create account'}</button></div>
    </form>
    ${
      signIn
        ? html`<p>New here? <a href="/signup?next=${onward}">Create an account</a>.</p>`
        : html`<p>Have an account? <a href="/login?next=${onward}">Sign in</a>.</p>`
    }`;
}

export const adminAccountRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  const limited = { rateLimit: { max: deps.signInPerMinute, timeWindow: 60_000 } };
  app.get('/login', async (request, reply) => {
    const next = internalPath(String((request.query as Record<string, unknown>).next ?? ''));
    if (request.browser.owner) return reply.redirect(next, 303);
    return sendPage(reply, 200, page('Sign in', accountForm('signIn', request.browser.csrf, next)));
  });

  app.post('/login', { config: limited }, async (request, reply) => {
    requireCsrf(deps, request);
    const next = internalPath(field(request.body, 'next'));
    const email = field(request.body, 'email').trim();
    const password = field(request.body, 'password');
    const owner = await ownerSignIn(deps.db, email);
    unknownOwnerHash ??= hashPassword('no owner has this password');
    const valid = await verifyPassword(password, owner?.password_hash ?? (await unknownOwnerHash));
    if (!owner || !valid) {
      await recordAudit(deps, deps.db, { kind: 'login_failed', ownerId: owner?.id, ip: request.ip });
      const form = accountForm(
        'signIn',
        request.browser.csrf,
        next,
        'That email and password do not match an account.',
        { email },
      );
      return sendPage(reply, 401, page('Sign in', form));
    }
    await deps.sessions.signIn(reply, owner);
    await recordAudit(deps, deps.db, { kind: 'login', ownerId: owner.id, ip: request.ip });
    return reply.redirect(next, 303);
  });

  app.get('/signup', async (request, reply) => {
    const next = internalPath(String((request.query as Record<string, unknown>).next ?? ''));
    return sendPage(
      reply,
      200,
      page('Create your account', accountForm('signUp', request.browser.csrf, next)),
    );
  });

  app.post('/signup', { config: limited }, async (request, reply) => {
    requireCsrf(deps, request);
    const next = internalPath(field(request.body, 'next'));
    const email = field(request.body, 'email').trim();
    const firstName = field(request.body, 'firstName');
    const lastName = field(request.body, 'lastName');
    try {
      const { ownerId } = await createOwner(deps, {
        email,
        password: field(request.body, 'password'),
        firstName,
        lastName,
      });
      await deps.sessions.signIn(reply, { id: ownerId, email });
      await recordAudit(deps, deps.db, { kind: 'login', ownerId, ip: request.ip });
      return reply.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const form = accountForm('signUp', request.browser.csrf, next, error.message, {
        email,
        firstName,
        lastName,
      });
      return sendPage(reply, error.status, page('Create your account', form));
    }
  });

  app.post('/logout', async (request, reply) => {
    requireCsrf(deps, request);
    await deps.sessions.signOut(request.browser, reply);
    return reply.redirect('/login', 303);
  });
};
