/** What the tests of the product forms' fields share. */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the page shows `value` in the input named `name`, as typed. */
export const kept = (body: string, name: string, value: string) =>
  new RegExp(`name="${escape(name)}"\\s+value="${escape(value)}"`).test(body);

/** A variant's shipping measurements on a METRIC site, none set. */
export const NO_METRIC_MEASUREMENTS = {
  weight: { unit: 'KILOGRAM', value: 0 },
  dimensions: { unit: 'CENTIMETER', length: 0, width: 0, height: 0 },
};
