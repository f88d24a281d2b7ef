// Reads Confluent wire-format Avro payloads as a Java consumer with Apache Avro does, to check
// that what our AvroConverter writes is readable by the reference implementation: the magic
// byte, the schema id, the writer's schema fetched from the registry (GET <url>/schemas/ids/<id>),
// then Apache Avro's GenericDatumReader over the rest, which must consume every byte.
// Input: one payload per line on stdin, base64. Output, one line per payload:
// "<id> <hex of Java's own binary encoding of the datum> <the datum in Avro's JSON encoding>".
// Run: java -cp '<kafka libs>/*:avro-1.12.2.jar' AvroWireReader.java <registry url>
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;

public class AvroWireReader {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    HttpClient http = HttpClient.newHttpClient();
    ObjectMapper mapper = new ObjectMapper();
    Map<Integer, Schema> schemas = new HashMap<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      ByteBuffer buffer = ByteBuffer.wrap(Base64.getDecoder().decode(line.trim()));
      if (buffer.get() != 0) throw new IllegalStateException("Unknown magic byte");
      int id = buffer.getInt();
      Schema schema = schemas.get(id);
      if (schema == null) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id)).build();
        String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        schema = new Schema.Parser().parse(mapper.readTree(body).get("schema").asText());
        schemas.put(id, schema);
      }
      BinaryDecoder decoder = DecoderFactory.get()
          .binaryDecoder(buffer.array(), buffer.position(), buffer.remaining(), null);
      Object datum = new GenericDatumReader<Object>(schema).read(null, decoder);
      if (!decoder.isEnd()) throw new IllegalStateException("Bytes left after the datum");
      GenericDatumWriter<Object> writer = new GenericDatumWriter<>(schema);
      ByteArrayOutputStream binary = new ByteArrayOutputStream();
      BinaryEncoder binaryEncoder = EncoderFactory.get().binaryEncoder(binary, null);
      writer.write(datum, binaryEncoder);
      binaryEncoder.flush();
      ByteArrayOutputStream json = new ByteArrayOutputStream();
      JsonEncoder jsonEncoder = EncoderFactory.get().jsonEncoder(schema, json);
      writer.write(datum, jsonEncoder);
      jsonEncoder.flush();
      StringBuilder hex = new StringBuilder();
      for (byte b : binary.toByteArray()) hex.append(String.format("%02x", b));
      System.out.println(id + " " + hex + " " + json.toString(StandardCharsets.UTF_8));
    }
  }
}
