import { Type, type Static } from 'typebox';
import { Pagination } from '../http/common.schemas.ts';

/** The wire shapes of Contacts v1 and address books (platform-surface 2.6), declared once here. */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const LIMITS = { name: 200, email: 254, addressText: 200, search: 200 } as const;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;

const Micros = Type.String({ description: 'ISO 8601 UTC with microseconds (platform-surface 0.6)' });
const AddressText = Nullable(Type.String({ maxLength: LIMITS.addressText }));

/** `line1`, `region`, `phoneNumber`, unlike the order Address (platform-surface 2.6.1). */
export const ContactAddress = Type.Object({
  firstName: AddressText,
  lastName: AddressText,
  line1: AddressText,
  line2: AddressText,
  city: AddressText,
  region: AddressText,
  postalCode: AddressText,
  countryCode: Type.String({ description: 'ISO 3166-1 alpha-2, one of the 251 codes the platform lists' }),
  phoneNumber: AddressText,
});

export const AddressBookEntry = Type.Object({
  id: Type.String({ description: '24 hex characters' }),
  defaultShipping: Type.Boolean(),
  address: ContactAddress,
});

export const Contact = Type.Object({
  id: Type.String({ description: '24 hex characters; the profile id and an order customerId too' }),
  createdOn: Micros,
  firstName: Type.String(),
  lastName: Type.String(),
  locale: Nullable(Type.String()),
  primaryEmail: Type.Object({
    createdOn: Micros,
    email: Type.String(),
    acceptsMarketing: Type.Object({
      acceptsMarketing: Type.Boolean(),
      joinedOn: Nullable(Micros),
      leftOn: Nullable(Micros),
    }),
  }),
  defaultShippingAddress: Nullable(AddressBookEntry),
});

export const ContactEnvelope = Type.Object({ contact: Contact });
export const ContactPage = Type.Object({ contacts: Type.Array(Contact), pagination: Pagination });
export const AddressBookPage = Type.Object({
  addressBook: Type.Object({
    addressBookEntries: Type.Array(AddressBookEntry),
    defaultShippingAddressId: Nullable(Type.String({ description: 'null on a page without the default' })),
  }),
  pagination: Pagination,
});
export const AddressBookEntryEnvelope = Type.Object({ addressBookEntry: AddressBookEntry });

const Name = Type.String({ maxLength: LIMITS.name });
const Locale = Nullable(
  Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'e.g. en-US' }),
);
const Email = Type.String({ minLength: 3, maxLength: LIMITS.email });

export const CreateContactBody = Type.Object({
  firstName: Name,
  lastName: Name,
  locale: Locale,
  primaryEmail: Type.Object({
    email: Email,
    acceptsMarketing: Type.Optional(Type.Boolean({ description: 'default false' })),
  }),
});

/** JSON merge patch (RFC 7396): a field left out is kept; only locale may be null. */
export const PatchContactBody = Type.Object({
  firstName: Type.Optional(Name),
  lastName: Type.Optional(Name),
  locale: Type.Optional(Locale),
  primaryEmail: Type.Optional(
    Type.Object({ email: Type.Optional(Email), acceptsMarketing: Type.Optional(Type.Boolean()) }),
  ),
});

export const AddressBookEntryBody = Type.Object({
  address: Type.Object({
    firstName: Type.Optional(AddressText),
    lastName: Type.Optional(AddressText),
    line1: Type.Optional(AddressText),
    line2: Type.Optional(AddressText),
    city: Type.Optional(AddressText),
    region: Type.Optional(AddressText),
    postalCode: Type.Optional(AddressText),
    countryCode: Type.String({ maxLength: 2, description: 'one of the 251 codes of platform-surface 2.6.1' }),
    phoneNumber: Type.Optional(AddressText),
  }),
  defaultShipping: Type.Optional(
    Type.Boolean({ description: 'default false; the first entry is default anyway' }),
  ),
});

export const PageQuery = Type.Object({
  pageSize: Type.Optional(
    Type.String({
      maxLength: 10,
      description: '1 to 1000, default 50; 0 means the default (the platform documents 0 to 1000)',
    }),
  ),
  cursor: Type.Optional(Type.String({ description: 'pagination.nextPageCursor of the previous page' })),
});

export const SORT_FIELDS = [
  'ID',
  'CREATED_ON',
  'EMAIL',
  'ACCEPTS_MARKETING_JOINED_ON',
  'FIRST_NAME',
  'LAST_NAME',
  'ORDER_COUNT',
  'LAST_ORDER_ON',
  'ORDER_AMOUNT',
  'DONATION_COUNT',
  'LAST_DONATION_ON',
  'DONATION_AMOUNT',
] as const;

const DateFilter = Type.Object({
  after: Type.Optional(Type.String({ description: 'RFC 3339 date-time, any offset; exclusive' })),
  before: Type.Optional(Type.String({ description: 'RFC 3339 date-time, any offset; inclusive' })),
});
const IntegerFilter = Type.Object({
  min: Type.Optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'inclusive' })),
  max: Type.Optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'inclusive' })),
});

export const ContactQueryBody = Type.Object({
  cursor: Type.Optional(Type.String()),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'default 50' })),
  searchString: Type.Optional(Type.String({ maxLength: LIMITS.search, description: 'in names and e-mail' })),
  sortField: Type.Optional(
    Type.String({
      maxLength: 40,
      description: `${SORT_FIELDS.join(', ')}; any case, and camelCase (createdOn); default CREATED_ON`,
    }),
  ),
  sortDirection: Type.Optional(
    Type.String({ maxLength: 20, description: 'ASCENDING (the default) or DESCENDING; any case' }),
  ),
  acceptsMarketingWithDate: Type.Optional(
    Type.Object({ acceptsMarketing: Type.Optional(Type.Boolean()), joinedOn: Type.Optional(DateFilter) }),
  ),
  firstOrderOn: Type.Optional(DateFilter),
  lastOrderOn: Type.Optional(DateFilter),
  firstDonationOn: Type.Optional(DateFilter),
  lastDonationOn: Type.Optional(DateFilter),
  orderCount: Type.Optional(IntegerFilter),
  orderAmount: Type.Optional(IntegerFilter),
  donationCount: Type.Optional(IntegerFilter),
  donationAmount: Type.Optional(IntegerFilter),
});

export const ContactParams = Type.Object({ contactId: Type.String() });
export const EntryParams = Type.Object({ contactId: Type.String(), addressBookEntryId: Type.String() });

export type ContactT = Static<typeof Contact>;
export type AddressBookEntryT = Static<typeof AddressBookEntry>;
export type ContactAddressT = Static<typeof ContactAddress>;
export type CreateContactInput = Static<typeof CreateContactBody>;
export type PatchContactInput = Static<typeof PatchContactBody>;
export type AddressBookEntryInput = Static<typeof AddressBookEntryBody>;
export type ContactQueryInput = Static<typeof ContactQueryBody>;
export type PageQueryT = Static<typeof PageQuery>;
export type SortField = (typeof SORT_FIELDS)[number];
