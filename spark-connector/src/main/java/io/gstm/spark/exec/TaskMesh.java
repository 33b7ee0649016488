package io.gstm.spark.exec;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Connections between every two tasks of a loop that runs inside one stage ({@link TaskHub}),
 * for what the tasks trade among themselves each step (a subgraph's boundary updates, a state
 * partition's values and writes) without the driver reading and writing it once more, alone.
 * Frames are written and read by a {@link Codec} (arrays in bulk: {@link PackedArrays}, {@link
 * NarrowArrays}); a frame a task sends itself is handed over in memory.
 *
 * <p>Each task listens on the address it reaches the driver from, tells the hub, learns the
 * others' addresses from it, connects to those with a lower index and accepts the others, each
 * presenting the hub's token. A reader thread per peer drains its frames as they come, so that
 * two tasks writing large frames to each other never wait on each other.
 */
public final class TaskMesh<T> implements Closeable {
  private static final long ACCEPT_TIMEOUT_MILLIS = 60_000;

  /** How a frame goes on the wire. */
  public interface Codec<T> {
    void write(DataOutputStream out, T frame) throws IOException;

    T read(DataInputStream in) throws IOException;
  }

  private final int me;
  private final String name;
  private final Codec<T> codec;
  private final Socket[] peers;
  private final DataOutputStream[] out;
  private final List<BlockingQueue<Object>> inbox = new ArrayList<>();
  private volatile boolean closing;

  private TaskMesh(int me, int p, String name, Codec<T> codec) {
    this.me = me;
    this.name = name;
    this.codec = codec;
    this.peers = new Socket[p];
    this.out = new DataOutputStream[p];
    for (int q = 0; q < p; q++) {
      inbox.add(new LinkedBlockingQueue<>());
    }
  }

  /**
   * Connects task {@code me} with the other {@code p - 1}, trading addresses through {@code
   * link} (the hub hands every task the list of all, in task order).
   *
   * @param what what a task holds, for errors ("subgraph")
   */
  public static <T> TaskMesh<T> open(TaskHub.Link link, long token, int me, int p, String what,
      Codec<T> codec) throws IOException {
    TaskMesh<T> mesh = new TaskMesh<>(me, p, what, codec);
    InetAddress local = link.localAddress();
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(local, 0));
      server.setSoTimeout((int) ACCEPT_TIMEOUT_MILLIS);
      link.write(local.getHostAddress() + ":" + server.getLocalPort());
      @SuppressWarnings("unchecked")
      List<String> all = (List<String>) link.read();
      for (int q = 0; q < me; q++) {
        String a = all.get(q);
        int colon = a.lastIndexOf(':');
        Socket s = new Socket(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)));
        try {
          DataOutputStream hello = new DataOutputStream(s.getOutputStream());
          hello.writeLong(token);
          hello.writeInt(me);
          hello.flush();
          mesh.add(q, s);
        } catch (IOException e) {
          s.close();
          throw e;
        }
      }
      for (int left = p - 1 - me; left > 0; ) {
        Socket s;
        try {
          s = server.accept();
        } catch (SocketTimeoutException e) {
          throw new IOException(what + " " + me + ": " + left + " other " + what + "s' tasks "
              + "did not connect within " + ACCEPT_TIMEOUT_MILLIS / 1000 + " s", e);
        }
        s.setSoTimeout(10_000);
        DataInputStream hello = new DataInputStream(s.getInputStream());
        int q = hello.readLong() == token ? hello.readInt() : -1;
        s.setSoTimeout(0);
        if (q <= me || q >= p || mesh.peers[q] != null) {
          s.close(); // not one of this loop's tasks
          continue;
        }
        mesh.add(q, s);
        left--;
      }
    } catch (IOException | RuntimeException e) {
      mesh.close();
      throw e;
    }
    return mesh;
  }

  public int tasks() {
    return peers.length;
  }

  private void add(int q, Socket s) throws IOException {
    TaskHub.ready(s);
    peers[q] = s;
    out[q] = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
    InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
    BlockingQueue<Object> box = inbox.get(q);
    Thread reader = new Thread(() -> {
      DataInputStream din = new DataInputStream(in);
      try {
        while (true) {
          box.put(codec.read(din));
        }
      } catch (IOException e) {
        if (!closing) {
          box.add(new IOException(name + " " + me + " lost " + name + " " + q + "'s task: "
              + e.getMessage(), e));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "gstm-mesh-" + name + "-" + me + "-from-" + q);
    reader.setDaemon(true);
    reader.start();
  }

  /** Sends {@code frame} to task {@code q} (to this task itself: kept in memory). */
  public void send(int q, T frame) throws IOException {
    if (q == me) {
      inbox.get(q).add(frame);
      return;
    }
    codec.write(out[q], frame);
    out[q].flush();
  }

  /** Task {@code q}'s next frame, waiting for it. */
  @SuppressWarnings("unchecked")
  public T receive(int q) throws IOException, InterruptedException {
    Object f = inbox.get(q).take();
    if (f instanceof IOException e) {
      throw e;
    }
    return (T) f;
  }

  @Override
  public void close() {
    closing = true;
    for (Socket s : peers) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }
  }
}
