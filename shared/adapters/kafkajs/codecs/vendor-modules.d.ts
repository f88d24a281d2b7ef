// snappyjs and lz4js ship no types; these cover the parts the codecs use.

declare module 'snappyjs' {
  /** Raw (unframed) snappy. Returns the same kind of array it is given. */
  export function compress(uncompressed: Uint8Array): Uint8Array;
  /** Raw (unframed) snappy; throws on a malformed stream or one longer than `maxLength`. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
}

declare module 'lz4js' {
  /**
   * Compresses `src[sIndex, sIndex + sLength)` as one LZ4 block into `dst` (sized for the worst
   * case); returns the compressed length, 0 when nothing could be encoded. Matches are looked up
   * in `hashTable` (65536 entries), which must be zeroed for an independent block.
   */
  export function compressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    hashTable: Uint32Array,
  ): number;
  /** Decompresses one LZ4 block from `src[sIndex, sIndex + sLength)` into `dst` at `dIndex`; returns the new end. */
  export function decompressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    dIndex: number,
  ): number;
  /** An upper bound of the compressed size of `n` bytes. */
  export function compressBound(n: number): number;
}

declare module 'lz4js/xxh32.js' {
  /** XXH32 of `src[index, index + length)`. */
  export function hash(seed: number, src: Uint8Array, index: number, length: number): number;
}
