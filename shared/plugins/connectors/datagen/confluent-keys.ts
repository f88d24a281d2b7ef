/**
 * The keys of Confluent's kafka-connect-datagen (`io.confluent.kafka.connect.datagen.DatagenConnector`,
 * an alias of this connector) that this datagen does not support. The compatibility table in
 * `README.md` beside this file lists them with the keys taken alike or differently.
 */
import type { PeerConnector } from '../peer-keys.js';

const SCHEMAS =
  'records come from the built-in quickstarts only: set quickstart to orders, users, pageviews or sequence';

export const CONFLUENT_DATAGEN: PeerConnector = {
  name: "Confluent's datagen",
  unsupportedKeys: [
    { name: 'schema.filename', accepted: [''], instead: SCHEMAS },
    { name: 'schema.string', accepted: [''], instead: SCHEMAS },
    { name: 'schema.keyfield', accepted: [''], instead: SCHEMAS },
    { name: 'random.seed', instead: 'use seed' },
  ],
};
