/*
 * A site owner's browser for the test harness: it signs in and answers the consent page over
 * HTTP, as a person would, so every rule of the authorization flow applies to a harness grant.
 * It keeps cookies, reads the CSRF token of the last page, and follows no redirect by itself.
 */

/** What the harness could not do, in words a test's output shows as they are. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

export class OwnerBrowser {
  private readonly cookies = new Map<string, string>();
  private lastPage = '';

  constructor(private readonly baseUrl: string) {}

  /** A hidden field of the last page's form. */
  hidden(name: string): string {
    const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(this.lastPage)?.[1];
    if (value === undefined) throw new HarnessError(`the page has no ${name} field: ${this.pageText()}`);
    return value;
  }

  /** The last page's notice or heading, for an error that says what the owner would have seen. */
  pageText(): string {
    const text = /<(?:p class="notice[^"]*"|h1)[^>]*>([\s\S]*?)<\//.exec(this.lastPage)?.[1] ?? '';
    return text.replace(/<[^>]+>/g, '').trim() || this.lastPage.slice(0, 200);
  }

  async get(url: string): Promise<Response> {
    return this.remember(
      await fetch(new URL(url, this.baseUrl), { headers: this.headers(), redirect: 'manual' }),
    );
  }

  /** Posts a form with the CSRF token of the last page. */
  async post(url: string, form: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams({ csrf: this.hidden('csrf'), ...form }).toString();
    return this.remember(
      await fetch(new URL(url, this.baseUrl), {
        method: 'POST',
        headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      }),
    );
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.get('/login');
    const res = await this.post('/login', { email, password, next: '/sites' });
    if (res.status !== 303) throw new HarnessError(`signing in as ${email} failed: ${this.pageText()}`);
  }

  private headers(): Record<string, string> {
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private async remember(res: Response): Promise<Response> {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      if (at > 0) this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    if ((res.headers.get('content-type') ?? '').startsWith('text/html')) this.lastPage = await res.text();
    return res;
  }
}
