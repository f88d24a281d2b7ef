// Generates test/fixtures/protobuf-vectors.json with protobuf's Java library (protobuf-java and
// protobuf-java-util 4.36.2) and protoc 4.36.2, so our Protobuf encoding is checked against the
// reference implementation. Reads the cases from stdin (scripts/vectors/protobuf-cases.ts: our
// .proto text and the files it imports, the message name, the value in protobuf's JSON form and
// our bytes). For each, protoc compiles our text (so protoc accepts it), Java builds the message
// from the JSON (JsonFormat) and writes its bytes (hex), and parses our bytes, which must give the
// same message.
// Run: bash scripts/vectors/generate.sh (argument: the folder holding the jars and protoc)
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.util.JsonFormat;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;

public class ProtobufVectors {
  public static void main(String[] args) throws Exception {
    File lib = new File(args[0]);
    Path include = Files.createTempDirectory("protobuf-vectors");
    extractWellKnownTypes(lib, include);
    File protoc = null;
    for (File f : lib.listFiles()) if (f.getName().startsWith("protoc-")) protoc = f;
    protoc.setExecutable(true);
    JsonArray cases = JsonParser.parseReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).getAsJsonArray();
    JsonArray out = new JsonArray();
    for (JsonElement e : cases) {
      JsonObject c = e.getAsJsonObject();
      Path dir = Files.createTempDirectory(include, "case");
      for (Map.Entry<String, JsonElement> file : c.getAsJsonObject("files").entrySet()) {
        Path path = dir.resolve(file.getKey());
        Files.createDirectories(path.getParent());
        Files.writeString(path, file.getValue().getAsString());
      }
      Path set = dir.resolve("set.pb");
      Process p = new ProcessBuilder(protoc.getPath(), "--include_imports", "--descriptor_set_out=" + set,
          "-I" + dir, "-I" + include, "main.proto").redirectErrorStream(true).start();
      String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) throw new IllegalStateException(c.get("name").getAsString() + ": protoc: " + log);
      Descriptor descriptor = find(FileDescriptorSet.parseFrom(Files.readAllBytes(set)), c.get("message").getAsString());
      DynamicMessage.Builder builder = DynamicMessage.newBuilder(descriptor);
      JsonFormat.parser().merge(c.get("json").getAsString(), builder);
      DynamicMessage message = builder.build();
      DynamicMessage ours = DynamicMessage.parseFrom(descriptor, HexFormat.of().parseHex(c.get("ours").getAsString()));
      JsonObject v = new JsonObject();
      v.addProperty("name", c.get("name").getAsString());
      v.addProperty("hex", HexFormat.of().formatHex(message.toByteArray()));
      v.addProperty("readsOurs", ours.equals(message));
      v.addProperty("ours", JsonFormat.printer().print(ours));
      out.add(v);
    }
    Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
    System.out.println(gson.toJson(out));
  }

  /** The google/protobuf/*.proto files that protobuf-java ships, for protoc's include path. */
  static void extractWellKnownTypes(File lib, Path include) throws Exception {
    for (File f : lib.listFiles()) {
      if (!f.getName().startsWith("protobuf-java-4")) continue;
      try (JarFile jar = new JarFile(f)) {
        for (var entry : java.util.Collections.list(jar.entries())) {
          if (!entry.getName().startsWith("google/protobuf/") || !entry.getName().endsWith(".proto")) continue;
          Path path = include.resolve(entry.getName());
          Files.createDirectories(path.getParent());
          Files.write(path, jar.getInputStream(entry).readAllBytes());
        }
      }
    }
  }

  static Descriptor find(FileDescriptorSet set, String fullName) throws Exception {
    Map<String, FileDescriptor> built = new HashMap<>();
    for (FileDescriptorProto proto : set.getFileList()) {
      List<FileDescriptor> deps = new ArrayList<>();
      for (String dep : proto.getDependencyList()) deps.add(built.get(dep));
      built.put(proto.getName(), FileDescriptor.buildFrom(proto, deps.toArray(new FileDescriptor[0])));
    }
    for (FileDescriptor file : built.values()) {
      for (Descriptor d : file.getMessageTypes()) if (d.getFullName().equals(fullName)) return d;
    }
    throw new IllegalStateException("no message " + fullName);
  }
}
