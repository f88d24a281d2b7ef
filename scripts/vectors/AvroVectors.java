// Generates test/fixtures/avro-vectors.json with Apache Avro's Java library (org.apache.avro:avro),
// so our Avro encoding and schema text are checked against the reference implementation.
// Reads the cases from stdin (scripts/vectors/avro-cases.ts: name, our schema text, the datum in
// Avro's JSON encoding); for each, parses the schema, reads the datum with Avro's JsonDecoder and
// writes: the schema as Schema.toString() writes it, its Parsing Canonical Form, and the datum's
// binary encoding (hex).
// Run: bash scripts/vectors/generate.sh
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

public class AvroVectors {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode cases = mapper.readTree(System.in);
    ArrayNode out = mapper.createArrayNode();
    for (JsonNode c : cases) {
      Schema schema = new Schema.Parser().parse(c.get("schema").asText());
      Object datum = new GenericDatumReader<Object>(schema)
          .read(null, DecoderFactory.get().jsonDecoder(schema, c.get("datum").asText()));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
      new GenericDatumWriter<Object>(schema).write(datum, encoder);
      encoder.flush();
      StringBuilder hex = new StringBuilder();
      for (byte b : bytes.toByteArray()) hex.append(String.format("%02x", b));
      ObjectNode v = out.addObject();
      v.put("name", c.get("name").asText());
      v.put("schema", schema.toString());
      v.put("canonical", SchemaNormalization.toParsingForm(schema));
      v.put("hex", hex.toString());
    }
    System.out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(out));
  }
}
