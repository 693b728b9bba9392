import { ORDER_UPDATE_ACTIONS } from '../testing/trigger-orders.ts';
import { TRIGGERS, trigger, type OptionName, type TriggerOptions } from '../testing/triggers.ts';
import { TOPICS } from '../webhooks/topics.ts';
import type { Command, CommandGroup } from './command.ts';

/** Each trigger option's flag and what its value looks like in the help. */
const FLAGS: Record<OptionName, { flag: string; value: string }> = {
  sku: { flag: 'sku', value: 'S' },
  quantity: { flag: 'quantity', value: 'N' },
  email: { flag: 'email', value: 'E' },
  orderId: { flag: 'order', value: 'ID' },
  action: { flag: 'action', value: ORDER_UPDATE_ACTIONS.join('|') },
  clientId: { flag: 'client', value: 'ID' },
  contactId: { flag: 'contact', value: 'ID' },
  addressId: { flag: 'address', value: 'ID' },
  productId: { flag: 'product', value: 'ID' },
  name: { flag: 'name', value: 'N' },
};

function command(topic: (typeof TOPICS)[number]): Command {
  const names = TRIGGERS[topic].options;
  return {
    synopsis: ['--website ID', ...names.map((name) => `[--${FLAGS[name].flag} ${FLAGS[name].value}]`)].join(
      ' ',
    ),
    options: Object.fromEntries(
      ['website', ...names.map((name) => FLAGS[name].flag)].map((flag) => [
        flag,
        { type: 'string' as const },
      ]),
    ),
    required: ['website'],
    run: (deps, values) => {
      const options: TriggerOptions = {};
      for (const name of names) {
        const value = values[FLAGS[name].flag];
        if (value === undefined) continue;
        if (name === 'quantity') options.quantity = Number(value);
        else options[name] = value;
      }
      return trigger(deps, topic, { websiteId: values.website!, ...options });
    },
  };
}

/**
 * `emporium trigger TOPIC --website ID ...`: makes the change that sends TOPIC's webhook, one
 * command a topic the outbox sends (testing/triggers.ts).
 */
export const TRIGGER: CommandGroup = Object.fromEntries(TOPICS.map((topic) => [topic, command(topic)]));
