import { Type, type Static } from 'typebox';
import { Money, Pagination } from '../http/common.schemas.ts';

/** The transaction Document of platform-surface 2.2.3, its fields in the order of the wire. */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

export const Tax = Type.Object({
  amount: Money,
  rate: Type.String({ description: 'percent with two decimals: "7.00" is 7 %' }),
  name: Type.String(),
  jurisdiction: Nullable(
    Type.String({
      description:
        'from the shipping address (else the billing address): `COUNTRY:US,STATE:NY` or `COUNTRY:US`; null without a country',
    }),
  ),
});

export const SalesLineItem = Type.Object({
  id: Type.String({ description: 'UUID' }),
  discountAmount: Money,
  totalSales: Money,
  totalNetSales: Money,
  total: Money,
  taxes: Type.Array(Tax),
});

export const ShippingLineItem = Type.Object({
  id: Type.String({ description: 'UUID' }),
  description: Type.String(),
  amount: Money,
  discountAmount: Money,
  netAmount: Money,
  taxes: Type.Array(Tax),
});

export const Discount = Type.Object({ description: Type.String(), name: Type.String(), amount: Money });

export const Refund = Type.Object({
  id: Type.String(),
  amount: Money,
  refundedOn: Time,
  externalTransactionId: Nullable(Type.String()),
});

export const FeeRefund = Type.Object({
  id: Type.String(),
  amount: Money,
  amountGatewayCurrency: Money,
  exchangeRate: Type.Number(),
  refundedOn: Time,
  externalTransactionId: Nullable(Type.String()),
});

export const ProcessingFee = Type.Object({
  id: Type.String({ description: 'ten letters and digits' }),
  amount: Money,
  amountGatewayCurrency: Money,
  exchangeRate: Type.Number(),
  refundedAmount: Money,
  refundedAmountGatewayCurrency: Money,
  netAmount: Money,
  netAmountGatewayCurrency: Money,
  feeRefunds: Type.Array(FeeRefund),
});

export const PaymentSchema = Type.Object({
  id: Type.String({ description: 'UUID' }),
  amount: Money,
  refundedAmount: Money,
  netAmount: Money,
  creditCardType: Nullable(Type.String({ description: 'VISA, MASTERCARD, DISCOVER, AMEX, JCB or OTHER' })),
  provider: Type.String({ description: 'SQUARESPACE, STRIPE, PAYPAL or SQUARE' }),
  refunds: Type.Array(Refund),
  processingFees: Type.Array(ProcessingFee),
  giftCardId: Nullable(Type.String()),
  paidOn: Time,
  externalTransactionId: Nullable(Type.String()),
  externalTransactionProperties: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  externalCustomerId: Nullable(Type.String()),
});

/** What the `document` column holds: every field but the id and the two times, in wire order. */
const storedFields = {
  customerEmail: Nullable(Type.String()),
  salesOrderId: Nullable(Type.String()),
  voided: Type.Boolean({ description: 'the order was canceled' }),
  totalSales: Money,
  totalNetSales: Money,
  totalNetShipping: Money,
  totalTaxes: Money,
  total: Money,
  totalNetPayment: Money,
  payments: Type.Array(PaymentSchema, { description: 'empty for an imported order: it was paid elsewhere' }),
  salesLineItems: Type.Array(SalesLineItem),
  discounts: Type.Array(Discount),
  shippingLineItems: Type.Array(ShippingLineItem),
  paymentGatewayError: Nullable(
    Type.String({
      description:
        'GATEWAY_FEE_PROCEESING_ERROR, GATEWAY_API_PERMISSION_ERROR or GATEWAY_DISCONNNECTED (the platform spells them so)',
    }),
  ),
};

export const StoredDocument = Type.Object(storedFields);

export const TransactionDocument = Type.Object({
  id: Type.String({ description: 'UUID; not the order id (see salesOrderId)' }),
  createdOn: Time,
  modifiedOn: Time,
  ...storedFields,
});

export const TransactionPage = Type.Object({
  documents: Type.Array(TransactionDocument),
  pagination: Pagination,
});

export const TransactionsById = Type.Object({ documents: Type.Array(TransactionDocument) });

export const ListTransactionsQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({
      description: 'pagination.nextPageCursor of the previous page; alone, with no other parameter',
    }),
  ),
  modifiedAfter: Type.Optional(
    Type.String({
      description: 'ISO 8601 UTC; together with modifiedBefore: the window (modifiedAfter, modifiedBefore]',
    }),
  ),
  modifiedBefore: Type.Optional(
    Type.String({ description: 'ISO 8601 UTC; together with modifiedAfter, and later than it' }),
  ),
  orderId: Type.Optional(
    Type.String({ description: 'the document of this order (its salesOrderId); not with the dates' }),
  ),
});

export const DocumentIdsParams = Type.Object({
  documentIds: Type.String({ description: 'one document id (UUID) or a comma-separated list of at most 50' }),
});

export type StoredDocumentT = Static<typeof StoredDocument>;
export type TransactionDocumentT = Static<typeof TransactionDocument>;
export type ListTransactionsQueryT = Static<typeof ListTransactionsQuery>;
export type SalesLineItemT = Static<typeof SalesLineItem>;
export type PaymentT = Static<typeof PaymentSchema>;
export type TaxT = Static<typeof Tax>;
