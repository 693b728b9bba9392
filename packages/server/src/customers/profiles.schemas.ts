import { Type, type Static } from 'typebox';
import { Money, Pagination } from '../http/common.schemas.ts';

/** The Profile of platform-surface 2.3.3, its fields in the order of the wire. */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Text = Nullable(Type.String());
const Time = Nullable(Type.String({ description: 'ISO 8601 UTC with milliseconds' }));

/** The order Address shape (platform-surface 2.1.4). */
export const ProfileAddress = Type.Object({
  firstName: Text,
  lastName: Text,
  address1: Text,
  address2: Text,
  city: Text,
  state: Text,
  countryCode: Text,
  postalCode: Text,
  phone: Text,
});

export const TransactionsSummary = Type.Object({
  firstOrderSubmittedOn: Time,
  lastOrderSubmittedOn: Time,
  orderCount: Type.Integer(),
  totalOrderAmount: Money,
  totalRefundAmount: Money,
  firstDonationSubmittedOn: Time,
  lastDonationSubmittedOn: Time,
  donationCount: Type.Integer(),
  totalDonationAmount: Money,
});

export const Profile = Type.Object({
  id: Type.String({ description: '24 hex characters' }),
  firstName: Type.String({ description: 'empty when no order gave one' }),
  lastName: Type.String({ description: 'empty when no order gave one' }),
  email: Type.String(),
  hasAccount: Type.Boolean(),
  isCustomer: Type.Boolean({ description: 'has placed at least one order' }),
  createdOn: Type.String({ description: 'ISO 8601 UTC with microseconds, as the platform sends' }),
  address: Nullable(ProfileAddress),
  acceptsMarketing: Type.Boolean(),
  transactionsSummary: TransactionsSummary,
});

export const ProfilePage = Type.Object({ profiles: Type.Array(Profile), pagination: Pagination });

export const ProfilesById = Type.Object({ profiles: Type.Array(Profile) });

export const SORT_FIELDS = ['createdOn', 'id', 'email', 'lastName'] as const;

export const ListProfilesQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({
      description: 'pagination.nextPageCursor of the previous page; alone, with no other parameter',
    }),
  ),
  filter: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'semicolon-separated `name,value` pairs: `isCustomer,true`, `hasAccount,true` (only true), or ' +
        '`email,<address>` (case-insensitive; not with the other two)',
    }),
  ),
  email: Type.Optional(
    Type.String({ maxLength: 1000, description: 'the same as filter=email,<address>; not with filter' }),
  ),
  sortField: Type.Optional(Type.Enum([...SORT_FIELDS], { description: 'default id' })),
  sortDirection: Type.Optional(Type.Enum(['asc', 'dsc'], { description: 'dsc (descending) by default' })),
});

export const ProfileIdsParams = Type.Object({
  profileIdCsvs: Type.String({ description: 'one profile id or a comma-separated list of at most 50' }),
});

export type ProfileT = Static<typeof Profile>;
export type ProfileAddressT = Static<typeof ProfileAddress>;
export type ListProfilesQueryT = Static<typeof ListProfilesQuery>;
export type SortField = (typeof SORT_FIELDS)[number];
