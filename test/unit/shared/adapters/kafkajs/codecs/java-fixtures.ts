/**
 * Bytes written by Apache Kafka 4.4.0's own codecs: `Compression.snappy()`, `.lz4()` and
 * `.zstd()` `.build().wrapForOutput(stream, RecordBatch.MAGIC_VALUE_V2)`, which is what the Java
 * producer uses for each record batch, over {@link javaInput} (captured with a single-file Java
 * program on the broker's classpath, .kafka/lib-4.4.0).
 */
export const javaInput = 'serverless-connect '.repeat(8);

export const javaCompressed = {
  snappy:
    '82534e415050590000000001000000010000001e9801487365727665726c6573732d636f6e6e65637420fe1300fe13000513',
  lz4: '04224d186040821e000000ff047365727665726c6573732d636f6e6e6563742013006d506e6563742000000000',
  zstd: '28b52ffd0058d40000987365727665726c6573732d636f6e6e6563742001000546cd30010000',
} as const;

export const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'hex'));
export const utf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
export const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
