// avsc's Avro types alone (`avsc/lib/types.js`: types and their binary codec, without its
// files, streams and RPC services), typed by the declarations avsc ships for its whole API.
// A CommonJS module: import its default export.
declare module 'avsc/lib/types.js' {
  import type { Type, types } from 'avsc';

  const avroTypes: {
    readonly Type: typeof Type;
    /** The type classes (`LongType`, `RecordType`, `WrappedUnionType`, ...). */
    readonly builtins: typeof types;
  };
  export default avroTypes;
}
