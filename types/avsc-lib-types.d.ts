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

// avsc's `Tap`, the cursor its types read and write through (`type.encode` and `_write` use it).
// Writes past the buffer's end are dropped and advance `pos`, so `isValid()` tells a caller to
// retry with a larger buffer.
declare module 'avsc/lib/utils.js' {
  export class Tap {
    constructor(buf: Uint8Array, pos?: number);
    buf: Uint8Array;
    pos: number;
    isValid(): boolean;
    readLong(): number;
    writeLong(n: number): void;
    skipLong(): void;
    writeString(s: string): void;
    writeDouble(d: number): void;
    writeFloat(f: number): void;
  }
  const utils: { readonly Tap: typeof Tap };
  export default utils;
}
