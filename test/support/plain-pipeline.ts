import type { SourceRecord } from '../../shared/connect/records.js';
import type { SourceRecordPipeline } from '../../shared/runtime/source/pipeline.js';

const encoder = new TextEncoder();
const toBytes = (v: unknown) => (v === null ? null : encoder.encode(String(v)));

/**
 * A source pipeline without converters or transformations: each record's key and value as the
 * UTF-8 text of `String(v)` (null stays null), to its own topic. For runtime tests whose
 * records carry plain values (the sequence source's numbers).
 */
export const plainPipeline: SourceRecordPipeline = {
  process: async (record: SourceRecord) => ({
    kind: 'produce',
    record: { topic: record.topic, key: toBytes(record.key), value: toBytes(record.value) },
  }),
  close: () => {},
};
