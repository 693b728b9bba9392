/**
 * What the store's cart sells: PHYSICAL products, the ones an order ships to the shopper. A
 * service, a gift card or a download is shown with its price but is not bought through the cart
 * (an order's line of those types is not placed by Emporium's checkout).
 */
export function soldOnline(productType: string): boolean {
  return productType === 'PHYSICAL';
}
