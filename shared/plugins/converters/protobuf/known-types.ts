/**
 * The .proto files Confluent treats as known (`ProtobufSchema.knownTypes()`) that the mapping
 * uses: the google.protobuf wrappers and Timestamp, google.type Date and TimeOfDay, Confluent's
 * Decimal and its field meta option. Confluent's serializer registers them as no reference
 * (`skip.known.types` defaults to true): a schema imports them by name and every reader brings
 * its own copy. These are the definitions (fields and numbers, what the wire depends on), not
 * the upstream files' comments.
 */

/** google/protobuf/wrappers.proto as Confluent renders its descriptor (the text it registers). */
export const WRAPPERS_PROTO = `syntax = "proto3";
package google.protobuf;

option java_package = "com.google.protobuf";
option java_outer_classname = "WrappersProto";
option java_multiple_files = true;
option go_package = "google.golang.org/protobuf/types/known/wrapperspb";
option cc_enable_arenas = true;
option objc_class_prefix = "GPB";
option csharp_namespace = "Google.Protobuf.WellKnownTypes";

message DoubleValue {
  double value = 1;
}
message FloatValue {
  float value = 1;
}
message Int64Value {
  int64 value = 1;
}
message UInt64Value {
  uint64 value = 1;
}
message Int32Value {
  int32 value = 1;
}
message UInt32Value {
  uint32 value = 1;
}
message BoolValue {
  bool value = 1;
}
message StringValue {
  string value = 1;
}
message BytesValue {
  bytes value = 1;
}
`;

const TIMESTAMP_PROTO = `syntax = "proto3";
package google.protobuf;

message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}
`;

const DATE_PROTO = `syntax = "proto3";
package google.type;

message Date {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
}
`;

const TIME_OF_DAY_PROTO = `syntax = "proto3";
package google.type;

message TimeOfDay {
  int32 hours = 1;
  int32 minutes = 2;
  int32 seconds = 3;
  int32 nanos = 4;
}
`;

const DECIMAL_PROTO = `syntax = "proto3";
package confluent.type;

message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
`;

/** Only the message: the option's `extend` of descriptor.proto plays no part in the data. */
const META_PROTO = `syntax = "proto3";
package confluent;

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}
`;

/** The known files by import name. */
export const KNOWN_FILES: ReadonlyMap<string, string> = new Map([
  ['google/protobuf/wrappers.proto', WRAPPERS_PROTO],
  ['google/protobuf/timestamp.proto', TIMESTAMP_PROTO],
  ['google/type/date.proto', DATE_PROTO],
  ['google/type/timeofday.proto', TIME_OF_DAY_PROTO],
  ['confluent/type/decimal.proto', DECIMAL_PROTO],
  ['confluent/meta.proto', META_PROTO],
]);

/** The file that defines each known type the mapping writes. */
export const KNOWN_TYPE_FILES: ReadonlyMap<string, string> = new Map([
  ['confluent.type.Decimal', 'confluent/type/decimal.proto'],
  ['google.type.Date', 'google/type/date.proto'],
  ['google.type.TimeOfDay', 'google/type/timeofday.proto'],
  ['google.protobuf.Timestamp', 'google/protobuf/timestamp.proto'],
  ...[
    'DoubleValue',
    'FloatValue',
    'Int64Value',
    'UInt64Value',
    'Int32Value',
    'UInt32Value',
    'BoolValue',
    'StringValue',
    'BytesValue',
  ].map((name): [string, string] => [`google.protobuf.${name}`, 'google/protobuf/wrappers.proto']),
]);

/** The wrapper message of each Connect primitive at the top level, as Confluent picks them. */
export const ROOT_WRAPPERS: Readonly<Record<string, string>> = Object.freeze({
  int8: 'google.protobuf.Int32Value',
  int16: 'google.protobuf.Int32Value',
  int32: 'google.protobuf.Int32Value',
  int64: 'google.protobuf.Int64Value',
  float32: 'google.protobuf.FloatValue',
  float64: 'google.protobuf.DoubleValue',
  boolean: 'google.protobuf.BoolValue',
  string: 'google.protobuf.StringValue',
  bytes: 'google.protobuf.BytesValue',
});

/** True for the nine google.protobuf wrapper messages. */
export function isWrapperType(fullName: string): boolean {
  return (
    fullName.startsWith('google.protobuf.') &&
    fullName.endsWith('Value') &&
    KNOWN_TYPE_FILES.get(fullName) === 'google/protobuf/wrappers.proto'
  );
}
