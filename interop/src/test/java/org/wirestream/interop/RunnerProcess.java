package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the C++ runner once over a batch of requests: one JSON object a line in, one answer a
 * line out, in the same order (protocol in runner/runner.h). A runner that dies or answers
 * fewer lines is an IOException naming its exit code and the tail of its stderr.
 */
final class RunnerProcess {
  static final ObjectMapper JSON = new ObjectMapper();

  private RunnerProcess() {}

  static List<JsonNode> run(Context ctx, String batchName, List<ObjectNode> requests)
      throws IOException, InterruptedException {
    Path in = ctx.work.resolve(batchName + ".requests.jsonl");
    Path out = ctx.work.resolve(batchName + ".answers.jsonl");
    Path err = ctx.work.resolve(batchName + ".stderr");
    try (BufferedWriter w = Files.newBufferedWriter(in, StandardCharsets.UTF_8)) {
      for (ObjectNode r : requests) {
        w.write(JSON.writeValueAsString(r));
        w.write('\n');
      }
    }
    Process p =
        new ProcessBuilder(ctx.runner.toString(), in.toString())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("runner timed out on " + in);
    }
    List<JsonNode> answers = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) answers.add(JSON.readTree(line));
    }
    if (p.exitValue() != 0 || answers.size() != requests.size()) {
      String tail = Files.readString(err);
      if (tail.length() > 2000) tail = tail.substring(tail.length() - 2000);
      throw new IOException(
          "runner exited " + p.exitValue() + " after " + answers.size() + " of "
              + requests.size() + " answers (" + in + "): " + tail);
    }
    return answers;
  }
}
