package org.wirestream.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.ElasticsearchException;
import org.elasticsearch.action.support.PlainActionFuture;
import org.elasticsearch.cluster.node.DiscoveryNode;
import org.elasticsearch.common.breaker.CircuitBreaker;
import org.elasticsearch.common.breaker.CircuitBreakingException;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.transport.TransportAddress;
import org.elasticsearch.core.Releasable;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.threadpool.ThreadPool;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.transport.Compression;
import org.elasticsearch.transport.ConnectionProfile;
import org.elasticsearch.transport.RemoteTransportException;
import org.elasticsearch.transport.Transport;
import org.elasticsearch.transport.TransportRequestOptions;
import org.elasticsearch.transport.TransportResponse;
import org.elasticsearch.transport.TransportResponseHandler;
import org.elasticsearch.transport.TransportService;
import org.wirestream.interop.compat.Es;

/**
 * ES's own TransportService over its Netty4 TCP transport on loopback, and the wirestream
 * peer (peer/peer_main.cc, whose comment lists the actions and bodies), both ways:
 * wirestream -> ES cases run in the peer and report a line each; ES -> wirestream cases run
 * here against the peer in server mode. Every wait has a timeout; the peer is killed at the end.
 */
final class TransportCheck implements Check {
  static final int TIMEOUT_S = 30;

  @Override
  public String name() {
    return "transport";
  }

  /** ES's side of the bodies: the TransportRequest (its parent TaskId) and one string. */
  static final class TextRequest extends Es.TransportRequestBase {
    final String text;

    TextRequest(String text) {
      this.text = text;
    }

    TextRequest(StreamInput in) throws IOException {
      super(in);
      text = in.readString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
      super.writeTo(out);
      out.writeString(text);
    }
  }

  static final class TextResponse extends TransportResponse {
    final String text;

    TextResponse(String text) {
      this.text = text;
    }

    TextResponse(StreamInput in) throws IOException {
      text = in.readString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
      out.writeString(text);
    }
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    Settings settings = Settings.builder()
        .put("node.name", "es-interop")
        .put("transport.host", "127.0.0.1")
        .put("transport.port", "19300-19500")
        .build();
    ThreadPool threadPool = Es.threadPool(settings);
    Transport transport =
        Es.netty4Transport(settings, threadPool, new NamedWriteableRegistry(List.of()));
    TransportService es = new TransportService(settings, transport, threadPool,
        TransportService.NOOP_TRANSPORT_INTERCEPTOR,
        address -> Es.discoveryNode("es-interop", address.publishAddress()),
        null, Set.of());
    registerActions(es, threadPool);
    es.start();
    es.acceptIncomingRequests();
    try {
      int port = es.boundAddress().publishAddress().getPort();
      wirestreamToEs(ctx, port, r, offer());
      // A wirestream node as it comes (its default, the newest release it knows) against
      // this ES: the lines after 8.8 (8.19 settles on its own version, as its handshake does).
      if (!offer().isEmpty()) wirestreamToEs(ctx, port, r, List.of("default"));
      esToWirestream(ctx, es, threadPool, r);
    } finally {
      es.stop();
      es.close();
      ThreadPool.terminate(threadPool, 10, TimeUnit.SECONDS);
    }
    return r;
  }

  static void registerActions(TransportService es, ThreadPool threadPool) {
    Es.registerHandler(es, "interop/echo", TextRequest::new,
        (req, channel, task) -> {
          String h = threadPool.getThreadContext().getHeader("X-Interop");
          channel.sendResponse(new TextResponse(req.text + "|" + (h == null ? "-" : h)));
        });
    Es.registerHandler(es, "interop/big", TextRequest::new,
        (req, channel, task) ->
            channel.sendResponse(new TextResponse("x".repeat(Integer.parseInt(req.text)))));
    Es.registerHandler(es, "interop/fail", TextRequest::new,
        (req, channel, task) -> {
          if (req.text.equals("cbe")) {
            throw new CircuitBreakingException("too much", 100, 50,
                CircuitBreaker.Durability.TRANSIENT);
          }
          if (req.text.equals("registry")) {
            // One of the newest registry ids of the line, its ES name in the message.
            String name = ElasticsearchException.getExceptionName(Es.registryException("probe"));
            throw Es.registryException("name=" + name);
          }
          throw new IllegalArgumentException("bad [" + req.text + "]");
        });
  }

  /**
   * What the peer offers: nothing up to ES 8.8 (the peer then offers 8.7.0 with 7.17.0 as its
   * minimum, which those releases talk to; wirestream's default, 9.5.3, they refuse); after,
   * ES's own transport version (ES 9.1 and later talk to 8.19 and later only), so that each
   * handshake follows that release's rules.
   */
  static List<String> offer() {
    int id = Es.transportVersionId();
    return id <= 8080199 ? List.of() : List.of(String.valueOf(id));
  }

  /**
   * The jar's build hash (Build.CURRENT up to 8.x, Build.current() after): ES 8.19 refuses a
   * transport handshake from a node of its own release with another hash.
   */
  static String buildHash() {
    try {
      Class<?> build = Class.forName("org.elasticsearch.Build");
      Object current;
      try {
        current = build.getMethod("current").invoke(null);
      } catch (NoSuchMethodException e) {
        current = build.getField("CURRENT").get(null);
      }
      return String.valueOf(build.getMethod("hash").invoke(current));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no build hash in this ES jar", e);
    }
  }

  /** The peer connects to ES and runs its cases; each "pass"/"fail" line is one case. */
  static void wirestreamToEs(Context ctx, int port, Result r, List<String> offer)
      throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(ctx.peer.toString(), "client",
        String.valueOf(port), String.valueOf(Es.transportVersionId()),
        String.valueOf(Es.refusedVersionId())));
    command.addAll(offer);
    String stderr = "peer-client" + (offer.isEmpty() ? "" : "-" + offer.get(0)) + ".stderr";
    String label = offer.isEmpty() ? "" : " (offering " + offer.get(0) + ")";
    Process p = new ProcessBuilder(command)
        .redirectError(ctx.work.resolve(stderr).toFile())
        .start();
    int cases = 0;
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("pass ")) {
          r.pass();
          cases++;
        } else if (line.startsWith("fail ")) {
          r.fail("wirestream -> ES" + label + ": " + line.substring(5));
          cases++;
        }
      }
    }
    if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      r.fail("wirestream -> ES" + label + ": the peer did not finish in " + TIMEOUT_S + " s");
    } else if (p.exitValue() != 0 || cases != 10) {
      r.fail("wirestream -> ES" + label + ": the peer exited " + p.exitValue() + " after " + cases
          + " of 10 cases (" + ctx.work.resolve(stderr) + ")");
    }
  }

  static <T extends TransportResponse> TransportResponseHandler<T> handler(
      org.elasticsearch.common.io.stream.Writeable.Reader<T> reader, CompletableFuture<T> done) {
    return Es.responseHandler(reader, done);
  }

  interface Case {
    String run() throws Exception;  // null: pass; else why it failed
  }

  static void esCase(Result r, String name, Case c) {
    try {
      String why = c.run();
      if (why == null) {
        r.pass();
      } else {
        r.fail("ES -> wirestream: " + name + ": " + why);
      }
    } catch (Exception e) {
      r.fail("ES -> wirestream: " + name + ": " + chain(e));
    }
  }

  /** An exception with its causes, innermost last (ES wraps what went wrong several times). */
  static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (int depth = 0; t != null && depth < 6; t = t.getCause(), depth++) {
      if (depth > 0) b.append(" <- ");
      String s = t.toString();
      b.append(s.length() > 300 ? s.substring(0, 300) + "..." : s);
    }
    return b.toString();
  }

  static String echo(TransportService es, ThreadPool threadPool, Transport.Connection conn,
      String text, String header) throws Exception {
    CompletableFuture<TextResponse> done = new CompletableFuture<>();
    ThreadContext tc = threadPool.getThreadContext();
    try (ThreadContext.StoredContext ignored = tc.stashContext()) {
      if (header != null) tc.putHeader("X-Interop", header);
      es.sendRequest(conn, "interop/ws-echo", new TextRequest(text),
          TransportRequestOptions.EMPTY, handler(TextResponse::new, done));
    }
    return done.get(TIMEOUT_S, TimeUnit.SECONDS).text;
  }

  static Transport.Connection open(TransportService es, DiscoveryNode node,
      ConnectionProfile profile) throws Exception {
    PlainActionFuture<Transport.Connection> f = new PlainActionFuture<>();
    es.openConnection(node, profile, f);
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  static ConnectionProfile profile(Compression.Scheme scheme, TimeValue ping) {
    ConnectionProfile.Builder b = new ConnectionProfile.Builder()
        .setConnectTimeout(TimeValue.timeValueSeconds(10))
        .setHandshakeTimeout(TimeValue.timeValueSeconds(10))
        .addConnections(1, TransportRequestOptions.Type.values());
    if (scheme != null) {
      b.setCompressionEnabled(Compression.Enabled.TRUE).setCompressionScheme(scheme);
    } else {
      b.setCompressionEnabled(Compression.Enabled.FALSE);
    }
    if (ping != null) b.setPingInterval(ping);
    return b.build();
  }

  /** ES connects to the peer in server mode and calls its actions. */
  static void esToWirestream(Context ctx, TransportService es, ThreadPool threadPool, Result r)
      throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(ctx.peer.toString(), "server"));
    command.addAll(offer());
    if (command.size() > 2) command.add(buildHash());  // offering a release
    Process p = new ProcessBuilder(command)
        .redirectError(ctx.work.resolve("peer-server.stderr").toFile())
        .start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String first = out.readLine();
      if (first == null || !first.startsWith("port ")) {
        r.fail("ES -> wirestream: the peer did not start: " + first);
        return;
      }
      int port = Integer.parseInt(first.substring(5).trim());
      DiscoveryNode seed = Es.discoveryNode("ws-peer",
          new TransportAddress(InetAddress.getLoopbackAddress(), port));
      // As ES meets a node it knows only the address of (a seed, a remote cluster): one
      // connection and the transport handshake tell who it is, then connectToNode opens
      // ES's full set of channels to that node.
      DiscoveryNode[] found = {seed};
      esCase(r, "handshake: the peer's DiscoveryNode", () -> {
        try (Transport.Connection c = open(es, seed, profile(null, null))) {
          PlainActionFuture<DiscoveryNode> f = new PlainActionFuture<>();
          es.handshake(c, TimeValue.timeValueSeconds(10), f);
          found[0] = f.get(TIMEOUT_S, TimeUnit.SECONDS);
          return found[0].getId().equals("ws-peer") ? null : "node " + found[0];
        }
      });
      DiscoveryNode node = found[0];
      esCase(r, "connectToNode: every channel of ES's default profile", () -> {
        PlainActionFuture<Releasable> f = new PlainActionFuture<>();
        es.connectToNode(node, f);
        f.get(TIMEOUT_S, TimeUnit.SECONDS);
        return es.nodeConnected(node) ? null : "not connected";
      });
      esCase(r, "sendRequest, answer read by ES's reader", () -> {
        String got = echo(es, threadPool, es.getConnection(node), "from es \u00e9\ud834\udd1e", "v2");
        return got.equals("ws:from es \u00e9\ud834\udd1e|v2") ? null : "answer [" + got + "]";
      });
      esCase(r, "a wirestream handler's error, as ES's exception class", () -> {
        CompletableFuture<TextResponse> done = new CompletableFuture<>();
        es.sendRequest(es.getConnection(node), "interop/ws-fail", new TextRequest("x"),
            TransportRequestOptions.EMPTY, handler(TextResponse::new, done));
        try {
          done.get(TIMEOUT_S, TimeUnit.SECONDS);
          return "no error";
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable t = e.getCause();
          Throwable cause = t instanceof RemoteTransportException ? t.getCause() : null;
          if (cause instanceof IllegalArgumentException
              && "ws refused [x]".equals(cause.getMessage())) {
            return null;
          }
          return "ES read " + t + " caused by " + cause;
        }
      });
      for (Compression.Scheme scheme : Compression.Scheme.values()) {
        esCase(r, "compressed requests (" + scheme + ")", () -> {
          try (Transport.Connection c = open(es, node, profile(scheme, null))) {
            String text = "compress me ".repeat(5000);
            String got = echo(es, threadPool, c, text, null);
            return got.equals("ws:" + text + "|-") ? null : "answer of " + got.length() + " chars";
          }
        });
      }
      esCase(r, "ES's keep-alive pings on an idle connection", () -> {
        try (Transport.Connection c = open(es, node, profile(null, TimeValue.timeValueMillis(100)))) {
          Thread.sleep(1500);  // ES pings about 15 times; the peer answers none of them wrongly
          String got = echo(es, threadPool, c, "after pings", null);
          return got.equals("ws:after pings|-") ? null : "answer [" + got + "]";
        }
      });
    } finally {
      p.getOutputStream().close();  // the peer exits when its stdin closes
      if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly();
    }
  }
}
