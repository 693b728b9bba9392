import assert from 'node:assert/strict';
import type { Scope } from '../../src/shared/scopes.ts';
import { request, type Response } from './process.ts';

/**
 * A site owner's browser against a running server over HTTP: keeps its session cookie and the
 * CSRF token of the last page, and follows no redirect by itself. Sessions live in the database,
 * so one signed in on one instance is signed in on every instance.
 */
export class OwnerBrowser {
  private cookies = new Map<string, string>();
  private lastPage = '';

  constructor(private readonly baseUrl: string) {}

  private get csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.lastPage);
    assert.ok(match, `the page has a form with a CSRF token:\n${this.lastPage.slice(0, 500)}`);
    return match[1]!;
  }

  private remember(res: Response): Response {
    for (const line of res.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (name && value !== undefined) this.cookies.set(name.trim(), value.trim());
    }
    if (String(res.headers['content-type']).startsWith('text/html')) this.lastPage = res.body;
    return res;
  }

  private headers(): Record<string, string> {
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async get(url: string): Promise<Response> {
    return this.remember(await request(this.baseUrl, 'GET', url, this.headers()));
  }

  /** Posts the form with the CSRF token of the last page. */
  async post(url: string, form: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams({ csrf: this.csrf, ...form }).toString();
    const headers = { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.remember(await request(this.baseUrl, 'POST', url, headers, body));
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.get('/login');
    const res = await this.post('/login', { email, password, next: '/sites' });
    assert.equal(res.status, 303, res.body);
  }

  /** Creates an API key from the keys page; returns the key, which the page shows this once. */
  async createApiKey(websiteId: string, name: string, scopes: Scope[]): Promise<string> {
    await this.get(`/sites/${websiteId}/keys`);
    const res = await this.post(`/sites/${websiteId}/keys`, { name, scopeList: scopes.join(',') });
    assert.equal(res.status, 201, res.body);
    const key = /<code class="secret">(emp_key_[^<]+)<\/code>/.exec(res.body)?.[1];
    assert.ok(key, 'the page shows the new key');
    return key;
  }

  /** Presses Revoke beside the key named `name` on the keys page. */
  async revokeApiKey(websiteId: string, name: string): Promise<void> {
    const page = (await this.get(`/sites/${websiteId}/keys`)).body;
    const keyId = new RegExp(`<td>${name}</td>[\\s\\S]*?/keys/([0-9a-f]{24})/revoke`).exec(page)?.[1];
    assert.ok(keyId, `the keys page lists ${name}`);
    const res = await this.post(`/sites/${websiteId}/keys/${keyId}/revoke`, {});
    assert.equal(res.status, 303, res.body);
  }

  /** Presses Revoke on the app's card on the site's page. */
  async revokeApp(websiteId: string, clientId: string): Promise<void> {
    const page = (await this.get(`/sites/${websiteId}`)).body;
    assert.ok(page.includes(`/apps/${clientId}/revoke`), 'the site page lists the app');
    const res = await this.post(`/sites/${websiteId}/apps/${clientId}/revoke`, {});
    assert.equal(res.status, 303, res.body);
  }
}
