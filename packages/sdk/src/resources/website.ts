import type { Caller } from '../client.js';
import type { CallOptions } from '../request.js';
import type { Member, Website } from '../types.js';

/** `/1.0/authorization/website` and `/member`: the website the credential acts on, and its owner. */
export class WebsiteResource {
  constructor(private readonly client: Caller) {}

  get(options: CallOptions = {}): Promise<Website> {
    return this.client.call({ method: 'GET', path: '/1.0/authorization/website', ...options });
  }

  /** The site owner who granted the OAuth token (an API key has none: AuthenticationError). */
  member(options: CallOptions = {}): Promise<Member> {
    return this.client.call({ method: 'GET', path: '/1.0/authorization/member', ...options });
  }
}
