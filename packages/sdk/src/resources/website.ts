import type { Caller } from '../client.js';
import type { CallOptions } from '../request.js';
import type { Website } from '../types.js';

/** `/1.0/authorization/website`: the website the credential acts on. */
export class WebsiteResource {
  constructor(private readonly client: Caller) {}

  get(options: CallOptions = {}): Promise<Website> {
    return this.client.call({ method: 'GET', path: '/1.0/authorization/website', ...options });
  }
}
