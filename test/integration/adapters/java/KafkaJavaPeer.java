// Apache Kafka's own Java clients, driven by kafkajs-codecs.int.test.ts to prove wire
// compatibility. Run as a single-file program against the broker's classpath:
//   java -cp '.kafka/lib-4.4.0/*' KafkaJavaPeer.java consume <bootstrap> <topic> <count> <timeoutMs>
//     reads a topic from the beginning (isolation.level=read_committed) and prints
//     "VALUE <partition> <offset> <base64 value>" per record, until <count> records or the timeout
//   java -cp '.kafka/lib-4.4.0/*' KafkaJavaPeer.java produce <bootstrap> <topic> <compression.type>
//     writes one record per stdin line (base64 values) with the given compression, then exits
// (Kafka 4.x ships the console consumer and producer in kafka-tools, which the broker's
// classpath does not include.)
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class KafkaJavaPeer {
  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "consume" -> consume(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
      case "produce" -> produce(args[1], args[2], args[3]);
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  static void consume(String bootstrap, String topic, int count, long timeoutMs) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("isolation.level", "read_committed");
    props.put("enable.auto.commit", "false");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic)) {
        partitions.add(new TopicPartition(topic, p.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.currentTimeMillis() + timeoutMs;
      int seen = 0;
      while (seen < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String value = r.value() == null ? "-" : Base64.getEncoder().encodeToString(r.value());
          System.out.println("VALUE " + r.partition() + " " + r.offset() + " " + value);
          seen++;
        }
      }
      System.out.flush();
    }
  }

  static void produce(String bootstrap, String topic, String compression) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("compression.type", compression);
    props.put("linger.ms", "50");
    props.put("batch.size", String.valueOf(1 << 20));
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) continue;
        producer.send(new ProducerRecord<>(topic, 0, null, Base64.getDecoder().decode(line)));
      }
      producer.flush();
    }
    System.out.println("PRODUCED");
  }
}
