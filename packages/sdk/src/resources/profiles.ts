import { segment, type Caller } from '../client.js';
import { PagedList, batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { Profile, ProfileList, ProfileListParams } from '../types.js';

const PATH = '/1.0/profiles';
/** platform-surface 2.3.2: profiles per get request. */
const GET_BATCH = 50;

/** `/1.0/profiles` (scope `website.profiles.read`): one profile per buyer e-mail; an order's `customerId` is one. */
export class Profiles {
  constructor(private readonly client: Caller) {}

  /**
   * A page of 50; await it for the first page (`{ profiles, pagination }`), or `for await` over
   * every profile. Filters: `filter` (`'isCustomer,true;hasAccount,true'` or `'email,<address>'`)
   * or `email`; order: `sortField` (`createdOn`, `id`, `email`, `lastName`; default `id`) and
   * `sortDirection` (`asc`, or `dsc`, the default).
   */
  list(params: ProfileListParams = {}, options: CallOptions = {}): PagedList<ProfileList, Profile> {
    return new PagedList(
      (cursor) =>
        this.client.call<ProfileList>({
          method: 'GET',
          path: PATH,
          query: cursor ? { cursor } : params,
          ...options,
        }),
      (page) => page.profiles,
    );
  }

  /** One profile, or several in the order asked (more than 50: several requests of 50). */
  get(id: string, options?: CallOptions): Promise<Profile>;
  get(ids: readonly string[], options?: CallOptions): Promise<Profile[]>;
  async get(ids: string | readonly string[], options: CallOptions = {}): Promise<Profile | Profile[]> {
    const fetchBatch = async (batch: readonly string[]) =>
      (
        await this.client.call<{ profiles: Profile[] }>({
          method: 'GET',
          path: `${PATH}/${batch.map(segment).join(',')}`,
          ...options,
        })
      ).profiles;
    if (typeof ids === 'string') return (await fetchBatch([ids]))[0]!;
    return batched(ids, GET_BATCH, fetchBatch);
  }
}
