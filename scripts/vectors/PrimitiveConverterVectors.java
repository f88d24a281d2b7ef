// Generates test/fixtures/primitive-converter-vectors.json with Apache Kafka Connect's own
// Long/Integer/Short/Float/Double/BooleanConverter (connect-runtime), so ours are checked byte
// for byte against the real ones, in both directions, errors included.
// Run: bash scripts/vectors/generate.sh (resolves org.apache.kafka:connect-runtime with Maven).
import java.util.*;
import org.apache.kafka.connect.converters.*;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

public class PrimitiveConverterVectors {
  static final List<String> out = new ArrayList<>();
  static final String TOPIC = "topic";
  static final String HEADER = "header";

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
        }
      }
    }
    return b.append('"').toString();
  }

  static String hex(byte[] bytes) {
    if (bytes == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (byte x : bytes) b.append(String.format("%02x", x & 0xff));
    return b.append('"').toString();
  }

  static byte[] unhex(String s) {
    byte[] bytes = new byte[s.length() / 2];
    for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  /** A Java value as {"type": simple class name, "text": toString()}, plus the raw bits of a float or double. */
  static String value(Object v) {
    if (v == null) return "null";
    String type = v.getClass().getSimpleName();
    String bits = "";
    if (v instanceof Float f) bits = ", \"bits\": \"" + String.format("%08x", Float.floatToRawIntBits(f)) + "\"";
    if (v instanceof Double d) bits = ", \"bits\": \"" + String.format("%016x", Double.doubleToRawLongBits(d)) + "\"";
    return "{\"type\": " + quote(type) + ", \"text\": " + quote(String.valueOf(v)) + bits + "}";
  }

  static String schema(Schema s) {
    if (s == null) return "null";
    return "{\"type\": " + quote(s.type().toString()) + ", \"optional\": " + s.isOptional() + "}";
  }

  static String error(DataException e) {
    Throwable cause = e.getCause();
    return "{\"message\": " + quote(e.getMessage()) + ", \"cause\": "
        + (cause == null ? "null" : quote(cause.getMessage())) + "}";
  }

  static Object create(String name) {
    return switch (name) {
      case "LongConverter" -> new LongConverter();
      case "IntegerConverter" -> new IntegerConverter();
      case "ShortConverter" -> new ShortConverter();
      case "FloatConverter" -> new FloatConverter();
      case "DoubleConverter" -> new DoubleConverter();
      case "BooleanConverter" -> new BooleanConverter();
      default -> throw new IllegalArgumentException(name);
    };
  }

  /** Configured as the worker configures a key or value converter: converter.type=value. */
  static Converter dataConverter(String name) {
    Converter c = (Converter) create(name);
    c.configure(Map.of(), false);
    return c;
  }

  /** Configured as the worker configures a header converter: converter.type=header. */
  static HeaderConverter headerConverter(String name) {
    HeaderConverter c = (HeaderConverter) create(name);
    c.configure(Map.of("converter.type", "header"));
    return c;
  }

  /** What the header path did differently from the data path, or fails generation. */
  static void sameAsHeader(String what, String data, String header) {
    if (!data.equals(header)) {
      throw new IllegalStateException(what + ": header path gave " + header + ", data path " + data);
    }
  }

  /** fromConnectData(schema, value): the bytes written, or the DataException raised. */
  static void fromConnect(String conv, String name, Schema schema, Object value) {
    String result;
    try {
      result = "\"bytes\": " + hex(dataConverter(conv).fromConnectData(TOPIC, schema, value));
    } catch (DataException e) {
      result = "\"error\": " + error(e);
    }
    String header;
    try {
      header = "\"bytes\": " + hex(headerConverter(conv).fromConnectHeader(TOPIC, HEADER, schema, value));
    } catch (DataException e) {
      header = "\"error\": " + error(e);
    }
    sameAsHeader(conv + " " + name, result, header);
    out.add("  {\"converter\": " + quote(conv) + ", \"direction\": \"fromConnect\", \"name\": " + quote(name)
        + ", \"schema\": " + schema(schema) + ", \"value\": " + value(value) + ", " + result + "}");
    // Every value written is also read back: toConnectData of exactly those bytes.
    if (result.startsWith("\"bytes\": \"")) toConnect(conv, name + " (read back)", result.substring(10, result.length() - 1));
  }

  /** toConnectData(bytes): the schema and value read, and the bytes that writes again; or the DataException. */
  static void toConnect(String conv, String name, String hexBytes) {
    byte[] bytes = hexBytes == null ? null : unhex(hexBytes);
    String result;
    try {
      Converter c = dataConverter(conv);
      SchemaAndValue read = c.toConnectData(TOPIC, bytes);
      byte[] again = c.fromConnectData(TOPIC, read.schema(), read.value());
      result = "\"schema\": " + schema(read.schema()) + ", \"value\": " + value(read.value())
          + ", \"roundTrip\": " + hex(again);
    } catch (DataException e) {
      result = "\"error\": " + error(e);
    }
    String header;
    try {
      HeaderConverter c = headerConverter(conv);
      SchemaAndValue read = c.toConnectHeader(TOPIC, HEADER, bytes);
      byte[] again = c.fromConnectHeader(TOPIC, HEADER, read.schema(), read.value());
      header = "\"schema\": " + schema(read.schema()) + ", \"value\": " + value(read.value())
          + ", \"roundTrip\": " + hex(again);
    } catch (DataException e) {
      header = "\"error\": " + error(e);
    }
    sameAsHeader(conv + " " + name, result, header);
    out.add("  {\"converter\": " + quote(conv) + ", \"direction\": \"toConnect\", \"name\": " + quote(name)
        + ", \"bytes\": " + (hexBytes == null ? "null" : quote(hexBytes)) + ", " + result + "}");
  }

  static void values(String conv, Schema schema, Object... values) {
    for (Object v : values) fromConnect(conv, String.valueOf(v), schema, v);
    fromConnect(conv, "null", schema, null);
    fromConnect(conv, "null without schema", null, null);
    toConnect(conv, "null bytes", null);
  }

  static void lengths(String conv, int width) {
    toConnect(conv, "empty", "");
    toConnect(conv, "one byte short", "01".repeat(width - 1));
    toConnect(conv, "one byte long", "01".repeat(width + 1));
    toConnect(conv, "ten bytes", "00".repeat(10));
  }

  public static void main(String[] args) {
    String c = "LongConverter";
    values(c, Schema.INT64_SCHEMA, Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L,
        9007199254740991L, -9007199254740991L, 9007199254740992L, -9007199254740993L, 0x0102030405060708L);
    fromConnect(c, "without schema", null, 42L);
    fromConnect(c, "with a STRING schema", Schema.STRING_SCHEMA, 42L);
    fromConnect(c, "an Integer", Schema.INT64_SCHEMA, 5);
    fromConnect(c, "an integral Double", Schema.INT64_SCHEMA, 5.0);
    fromConnect(c, "a Double with a fraction", Schema.INT64_SCHEMA, 1.5);
    fromConnect(c, "a String", Schema.INT64_SCHEMA, "not a valid number");
    fromConnect(c, "a Boolean", Schema.INT64_SCHEMA, true);
    lengths(c, 8);

    c = "IntegerConverter";
    values(c, Schema.INT32_SCHEMA, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1, 0x01020304);
    fromConnect(c, "without schema", null, 42);
    fromConnect(c, "with a STRING schema", Schema.STRING_SCHEMA, 42);
    fromConnect(c, "a Long", Schema.INT32_SCHEMA, 5L);
    fromConnect(c, "a Short", Schema.INT32_SCHEMA, (short) 5);
    fromConnect(c, "a String", Schema.INT32_SCHEMA, "not a valid number");
    fromConnect(c, "a Boolean", Schema.INT32_SCHEMA, false);
    lengths(c, 4);

    c = "ShortConverter";
    values(c, Schema.INT16_SCHEMA, Short.MIN_VALUE, Short.MAX_VALUE, (short) 0, (short) -1, (short) 1, (short) 0x0102);
    fromConnect(c, "without schema", null, (short) 42);
    fromConnect(c, "an Integer", Schema.INT16_SCHEMA, 5);
    fromConnect(c, "a String", Schema.INT16_SCHEMA, "not a valid number");
    lengths(c, 2);

    c = "FloatConverter";
    values(c, Schema.FLOAT32_SCHEMA, 0.0f, -0.0f, 1.0f, -1.5f, 0.1f, 3.4028235e38f, -3.4028235e38f,
        Float.MIN_NORMAL, Float.MIN_VALUE, 1.0e-40f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY);
    fromConnect(c, "without schema", null, 2.5f);
    fromConnect(c, "a Double", Schema.FLOAT32_SCHEMA, 1.5);
    fromConnect(c, "an Integer", Schema.FLOAT32_SCHEMA, 1);
    fromConnect(c, "a String", Schema.FLOAT32_SCHEMA, "not a valid number");
    toConnect(c, "NaN with a payload", "7fc00001");
    toConnect(c, "negative NaN", "ffc00000");
    toConnect(c, "signalling NaN", "7f800001");
    lengths(c, 4);

    c = "DoubleConverter";
    values(c, Schema.FLOAT64_SCHEMA, 0.0, -0.0, 1.0, -2.5, 0.1, 1.0e21, Double.MAX_VALUE, -Double.MAX_VALUE,
        Double.MIN_NORMAL, Double.MIN_VALUE, 4.9e-320, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
    fromConnect(c, "without schema", null, 2.5);
    fromConnect(c, "a Float", Schema.FLOAT64_SCHEMA, 1.5f);
    fromConnect(c, "a Long", Schema.FLOAT64_SCHEMA, 1L);
    fromConnect(c, "a String", Schema.FLOAT64_SCHEMA, "not a valid number");
    fromConnect(c, "NaN with a payload", Schema.FLOAT64_SCHEMA, Double.longBitsToDouble(0x7ff8000000000001L));
    toConnect(c, "NaN with a payload", "7ff8000000000001");
    toConnect(c, "negative NaN", "fff8000000000000");
    toConnect(c, "signalling NaN", "7ff0000000000001");
    lengths(c, 8);

    c = "BooleanConverter";
    values(c, Schema.BOOLEAN_SCHEMA, true, false);
    fromConnect(c, "without schema", null, true);
    fromConnect(c, "with an INT32 schema", Schema.INT32_SCHEMA, false);
    fromConnect(c, "null with an INT8 schema", Schema.INT8_SCHEMA, null);
    fromConnect(c, "a String", Schema.BOOLEAN_SCHEMA, "true");
    fromConnect(c, "an Integer", Schema.BOOLEAN_SCHEMA, 1);
    toConnect(c, "empty", "");
    toConnect(c, "two bytes", "0001");
    toConnect(c, "byte 2", "02");
    toConnect(c, "byte 0xff", "ff");
    toConnect(c, "byte 0x80", "80");
    toConnect(c, "the text 42", "3432");

    System.out.println("[\n" + String.join(",\n", out) + "\n]");
  }
}
