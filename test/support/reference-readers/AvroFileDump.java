// Reads Avro object container files with Apache Avro's Java library (org.apache.avro:avro, see
// pom.xml beside this file) and prints, as one JSON array, per file: the writer's schema as
// Schema.toString() writes it, the file's codec, the 64-bit Rabin fingerprint
// (SchemaNormalization.fingerprint64) of the schema text, and each record in Avro's JSON
// encoding (JsonEncoder). Run by reference-readers.ts: java -cp '<lib>/*' AvroFileDump.java FILE...
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;

public class AvroFileDump {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    ArrayNode out = mapper.createArrayNode();
    for (String path : args) {
      try (DataFileReader<Object> reader =
          new DataFileReader<>(new File(path), new GenericDatumReader<>())) {
        Schema schema = reader.getSchema();
        ObjectNode file = out.addObject();
        file.put("file", path);
        file.put("schema", schema.toString());
        file.put("codec", reader.getMetaString("avro.codec"));
        byte[] text = reader.getMetaString("avro.schema").getBytes(StandardCharsets.UTF_8);
        file.put("fingerprint", String.format("%016x", SchemaNormalization.fingerprint64(text)));
        ArrayNode records = file.putArray("records");
        GenericDatumWriter<Object> writer = new GenericDatumWriter<>(schema);
        for (Object datum : reader) {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          JsonEncoder encoder = EncoderFactory.get().jsonEncoder(schema, bytes);
          writer.write(datum, encoder);
          encoder.flush();
          records.add(bytes.toString(StandardCharsets.UTF_8));
        }
      }
    }
    System.out.println(mapper.writeValueAsString(out));
  }
}
