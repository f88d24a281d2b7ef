import type { SourceEnvelope } from '../../shared/runtime/pipeline/record-envelope.js';
import type { SourceRecordPipeline } from '../../shared/runtime/pipeline/source-pipeline.js';

const encoder = new TextEncoder();
const toBytes = (v: unknown) => (v === null ? null : encoder.encode(String(v)));

/**
 * A source pipeline that fills each envelope with `fill` (its `outgoing` record, or its dead
 * letters), for runtime tests that need no converters or transformations.
 */
export function pipelineOf(fill: (envelope: SourceEnvelope) => void): SourceRecordPipeline {
  return {
    process: async (envelopes) => {
      for (const envelope of envelopes) fill(envelope);
    },
    close: () => {},
  };
}

/**
 * A source pipeline without converters or transformations: each record's key and value as the
 * UTF-8 text of `String(v)` (null stays null), to its own topic. For runtime tests whose
 * records carry plain values (the sequence source's numbers).
 */
export const plainPipeline: SourceRecordPipeline = pipelineOf((envelope) => {
  const { topic, key, value } = envelope.original;
  envelope.outgoing = { topic, key: toBytes(key), value: toBytes(value) };
});
