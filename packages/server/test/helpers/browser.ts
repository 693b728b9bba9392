import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A site owner's browser for app.inject: keeps its cookies, reads the CSRF token of the last
 * page, follows nothing by itself (tests look at each redirect).
 */
export class TestBrowser {
  cookies = new Map<string, string>();
  lastPage = '';

  /** `via`: the connection's address and extra headers, for a browser behind a proxy. */
  constructor(
    private readonly app: FastifyInstance,
    private readonly via: { remoteAddress?: string; headers?: Record<string, string> } = {},
  ) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** The CSRF token in the last page's forms. */
  get csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.lastPage);
    assert.ok(match, 'the page has a form with a CSRF token');
    return match[1]!;
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of res.cookies as { name: string; value: string; maxAge?: number }[]) {
      if (cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if (String(res.headers['content-type']).startsWith('text/html')) this.lastPage = res.body;
    return res;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'GET',
        url,
        remoteAddress: this.via.remoteAddress,
        headers: { ...this.via.headers, cookie: this.cookieHeader },
      }),
    );
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.via.remoteAddress,
        headers: {
          ...this.via.headers,
          cookie: this.cookieHeader,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }

  /** A form with a file (enctype multipart/form-data). */
  async postMultipart(
    url: string,
    form: Record<string, string>,
    file?: { field: string; name: string; type: string; data: Buffer },
  ): Promise<LightMyRequestResponse> {
    const boundary = `----form${Math.random().toString(16).slice(2)}`;
    const parts: Buffer[] = Object.entries(form).map(([name, value]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
    if (file) {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
        ),
        file.data,
        Buffer.from('\r\n'),
      );
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat(parts),
      }),
    );
  }

  /** Signs up (and so in) a new owner from the sign-up page. */
  async signUp(email: string, password = 'correct horse battery'): Promise<void> {
    await this.get('/signup');
    const res = await this.post('/signup', { csrf: this.csrf, email, password, next: '/sites' });
    assert.equal(res.statusCode, 303, res.body);
  }

  async signIn(
    email: string,
    password = 'correct horse battery',
    next = '/sites',
  ): Promise<LightMyRequestResponse> {
    await this.get(`/login?next=${encodeURIComponent(next)}`);
    return this.post('/login', { csrf: this.csrf, email, password, next });
  }

  /** Adds a site from the sites page; returns its id. */
  async addSite(title: string): Promise<string> {
    await this.get('/sites');
    const res = await this.post('/sites', {
      csrf: this.csrf,
      title,
      currency: 'USD',
      measurementStandard: 'IMPERIAL',
    });
    assert.equal(res.statusCode, 303, res.body);
    return String(res.headers.location).split('/').pop()!;
  }
}

/** The query parameters of a redirect's Location. */
export function redirectParams(res: LightMyRequestResponse): URLSearchParams {
  assert.equal(res.statusCode, 303, res.body);
  return new URL(String(res.headers.location), 'https://login.emporium.test').searchParams;
}
