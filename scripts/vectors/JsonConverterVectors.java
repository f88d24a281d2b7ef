// Generates test/fixtures/json-converter-vectors.json with Apache Kafka Connect's own
// JsonConverter, so our converter is checked byte for byte against the real one.
// Run: bash scripts/vectors/generate.sh (resolves org.apache.kafka:connect-json with Maven).
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.apache.kafka.connect.data.*;
import org.apache.kafka.connect.json.JsonConverter;

public class JsonConverterVectors {
  static final List<String> out = new ArrayList<>();

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
        }
      }
    }
    return b.append('"').toString();
  }

  static void vector(String name, boolean schemas, String decimalFormat, Schema schema, Object value) {
    JsonConverter c = new JsonConverter();
    Map<String, Object> cfg = new HashMap<>();
    cfg.put("schemas.enable", schemas);
    cfg.put("converter.type", "value");
    if (decimalFormat != null) cfg.put("decimal.format", decimalFormat);
    c.configure(cfg);
    byte[] bytes = c.fromConnectData("topic", schema, value);
    String json = bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    // Round trip through Connect itself: what its toConnectData + fromConnectData give back.
    SchemaAndValue back = c.toConnectData("topic", bytes);
    byte[] again = c.fromConnectData("topic", back.schema(), back.value());
    String roundTrip = again == null ? null : new String(again, StandardCharsets.UTF_8);
    out.add("  {\"name\": " + quote(name) + ", \"schemasEnable\": " + schemas
        + (decimalFormat == null ? "" : ", \"decimalFormat\": " + quote(decimalFormat))
        + ", \"json\": " + (json == null ? "null" : quote(json))
        + ", \"roundTrip\": " + (roundTrip == null ? "null" : quote(roundTrip)) + "}");
  }

  public static void main(String[] args) {
    for (boolean s : new boolean[] {true, false}) {
      String p = s ? "schema/" : "schemaless-value/";
      vector(p + "int8", s, null, Schema.INT8_SCHEMA, (byte) -12);
      vector(p + "int16", s, null, Schema.INT16_SCHEMA, (short) 31000);
      vector(p + "int32", s, null, Schema.INT32_SCHEMA, -2147483648);
      vector(p + "int64 max", s, null, Schema.INT64_SCHEMA, Long.MAX_VALUE);
      vector(p + "int64 min", s, null, Schema.INT64_SCHEMA, Long.MIN_VALUE);
      vector(p + "float32", s, null, Schema.FLOAT32_SCHEMA, 1.5f);
      vector(p + "float64", s, null, Schema.FLOAT64_SCHEMA, 3.141592653589793);
      vector(p + "float64 integral", s, null, Schema.FLOAT64_SCHEMA, 2.0);
      vector(p + "float64 tiny", s, null, Schema.FLOAT64_SCHEMA, 1.0e-7);
      vector(p + "float64 huge", s, null, Schema.FLOAT64_SCHEMA, 1.0e21);
      vector(p + "boolean", s, null, Schema.BOOLEAN_SCHEMA, true);
      vector(p + "string unicode", s, null, Schema.STRING_SCHEMA, "h\u00e9llo \"w\u00f6rld\"\n\u2603 \ud83d\ude00");
      vector(p + "bytes", s, null, Schema.BYTES_SCHEMA, new byte[] {0, 1, 2, (byte) 255, (byte) 128});
      vector(p + "optional string null", s, null, Schema.OPTIONAL_STRING_SCHEMA, null);
      vector(p + "array of int32", s, null, SchemaBuilder.array(Schema.INT32_SCHEMA).build(), List.of(1, 2, 3));
      vector(p + "array of optional strings", s, null,
          SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build(), Arrays.asList("a", null, "c"));
      Map<String, Integer> sm = new LinkedHashMap<>();
      sm.put("one", 1); sm.put("two", 2);
      vector(p + "map string keys", s, null, SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), sm);
      Map<Integer, String> im = new LinkedHashMap<>();
      im.put(1, "one"); im.put(2, "two");
      vector(p + "map int keys", s, null, SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(), im);
      Schema address = SchemaBuilder.struct().name("com.example.Address")
          .field("street", Schema.STRING_SCHEMA).field("zip", Schema.OPTIONAL_INT32_SCHEMA).build();
      Schema person = SchemaBuilder.struct().name("com.example.Person").version(3).doc("a person")
          .parameter("owner", "team-a")
          .field("name", Schema.STRING_SCHEMA)
          .field("age", Schema.OPTIONAL_INT16_SCHEMA)
          .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
          .field("address", address)
          .field("score", SchemaBuilder.float64().defaultValue(1.0).build())
          .build();
      Struct addr = new Struct(address).put("street", "Main St 1").put("zip", 12345);
      vector(p + "nested struct", s, null, person,
          new Struct(person).put("name", "Ada").put("age", (short) 36).put("tags", List.of("x", "y")).put("address", addr).put("score", 9.5));
      vector(p + "struct with nulls and default", s, null, person,
          new Struct(person).put("name", "Bob").put("address", new Struct(address).put("street", "Side")));
      Schema dec = Decimal.schema(2);
      vector(p + "decimal base64", s, null, dec, new BigDecimal("12345.67"));
      vector(p + "decimal negative base64", s, null, dec, new BigDecimal("-0.01"));
      vector(p + "decimal numeric", s, "NUMERIC", dec, new BigDecimal("-98765.43"));
      vector(p + "decimal large numeric", s, "NUMERIC", Decimal.schema(4), new BigDecimal(new BigInteger("123456789012345678901234567890"), 4));
      vector(p + "date", s, null, org.apache.kafka.connect.data.Date.SCHEMA, new java.util.Date(19000L * 86400000L));
      vector(p + "time", s, null, Time.SCHEMA, new java.util.Date(45296789L));
      vector(p + "timestamp", s, null, Timestamp.SCHEMA, new java.util.Date(1767225600123L));
      vector(p + "optional struct null", s, null, SchemaBuilder.struct().name("Opt").field("a", Schema.INT32_SCHEMA).optional().build(), null);
      vector(p + "int32 with default", s, null, SchemaBuilder.int32().defaultValue(42).build(), 7);
      vector(p + "map of arrays", s, null,
          SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.array(Schema.INT64_SCHEMA).build()).build(),
          Map.of("k", List.of(1L, -1L)));
    }
    // Schemaless values without a schema (schemas.enable=false, schema null): maps and lists.
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("id", 7); doc.put("name", "x"); doc.put("ok", false); doc.put("list", List.of(1, "two", 3.5));
    vector("no-schema/map", false, null, null, doc);
    vector("no-schema/null", false, null, null, null);
    vector("no-schema/null with envelope", true, null, null, null);
    vector("no-schema/map with envelope", true, null, null, doc);
    System.out.println("[\n" + String.join(",\n", out) + "\n]");
  }
}
