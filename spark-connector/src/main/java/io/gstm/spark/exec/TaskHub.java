package io.gstm.spark.exec;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.util.concurrent.Future;
import org.apache.spark.SparkContext;

/**
 * The driver's end of a loop that runs inside one Spark stage: the stage's tasks (one per
 * resident data set: a k-means point set, a subgraph) stay running and trade each step's
 * results with the driver over a socket of their own, instead of one Spark job per step (about
 * 75 ms each on a two-executor standalone cluster, longer than a GPU's step). A task reaches the
 * hub through its {@link Address} and a {@link Link}; the hub takes only connections that
 * present the loop's random token, and reads only gstm's classes, Java's collections and arrays.
 * Every task of the stage needs a task slot at once: {@link #awaitAll} says so when they do not
 * all start.
 */
public final class TaskHub implements Closeable {
  /** Where the tasks of a loop find its hub, and the token they show it. */
  @DefaultSerializer(JavaSerializer.class)
  public record Address(String host, int port, long token) implements Serializable {}

  private final ServerSocket server;
  private final Address address;
  private final Peer[] peers;
  private final String owner;
  private final String what;

  /**
   * A hub for {@code tasks} tasks, listening on the driver's {@code spark.driver.bindAddress}
   * and reached at its {@code spark.driver.host} (the two differ behind a NAT or in a pod).
   *
   * @param owner who runs the loop, for errors ("TxKMeans")
   * @param what what one task holds, for errors ("point set")
   */
  public static TaskHub onDriver(SparkContext sc, int tasks, String owner, String what) {
    String host = sc.getConf().get("spark.driver.host", "localhost");
    String bind = sc.getConf().get("spark.driver.bindAddress", host);
    return new TaskHub(bind, host, tasks, owner, what);
  }

  /** A hub listening on {@code bind} that the tasks reach at {@code host}. */
  public TaskHub(String bind, String host, int tasks, String owner, String what) {
    this.owner = owner;
    this.what = what;
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getByName(bind), 0));
      server.setSoTimeout(200);
    } catch (IOException e) {
      throw new UncheckedIOException(owner + ": cannot listen on the driver's address " + bind
          + " for the " + what + "s' tasks: " + e.getMessage(), e);
    }
    address = new Address(host, server.getLocalPort(), new SecureRandom().nextLong());
    peers = new Peer[tasks];
  }

  /**
   * The tasks the cluster can run at once now (the executors' cores over the cores a task
   * takes), which a loop in one stage needs one of per task; {@code spark.default.parallelism}
   * is no measure of it (a setting, often larger).
   */
  public static int taskSlots(SparkContext sc) {
    try {
      return sc.maxNumConcurrentTasks(sc.resourceProfileManager().defaultResourceProfile());
    } catch (RuntimeException | LinkageError e) {
      return sc.defaultParallelism(); // not in this Spark version
    }
  }

  public Address address() {
    return address;
  }

  public int tasks() {
    return peers.length;
  }

  /**
   * Waits until every task has connected, or the job has ended (its failure then rethrown by
   * the caller), or {@code timeoutMillis} have passed.
   *
   * @param advice appended to the error, e.g. another setting that needs no slots at once
   * @throws IllegalStateException if not every task connected in time
   */
  public void awaitAll(Future<?> job, long timeoutMillis, String advice) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    int connected = 0;
    while (connected < peers.length) {
      if (job.isDone()) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(owner + ": only " + connected + " of " + peers.length
            + " " + what + "s' tasks started within " + timeoutMillis / 1000 + " s; every "
            + what + " needs a free task slot on its executor at once" + advice);
      }
      Socket s;
      try {
        s = server.accept();
      } catch (SocketTimeoutException e) {
        continue;
      }
      // The hello is plain data: nothing is deserialized before the token is checked.
      int task = -1;
      try {
        s.setSoTimeout(10_000);
        DataInputStream hello = new DataInputStream(s.getInputStream());
        if (hello.readLong() == address.token()) {
          task = hello.readInt();
        }
        s.setSoTimeout(0);
      } catch (IOException e) {
        task = -1;
      }
      if (task < 0 || task >= peers.length || peers[task] != null) {
        s.close(); // not one of this loop's tasks
        continue;
      }
      peers[task] = new Peer(s);
      connected++;
    }
  }

  /**
   * Introduces the tasks of a {@link TaskMesh} to each other: reads where each one listens, then
   * sends every task the list of all, in task order.
   *
   * @throws IOException naming the task whose connection failed
   */
  public void introduceMesh() throws IOException {
    java.util.ArrayList<String> listening = new java.util.ArrayList<>(peers.length);
    int q = 0;
    try {
      for (; q < peers.length; q++) {
        listening.add((String) read(q));
      }
      for (q = 0; q < peers.length; q++) {
        write(q, listening);
      }
    } catch (IOException e) {
      throw new IOException(what + " " + q + "'s task was lost: " + e.getMessage(), e);
    }
  }

  /** The next object task {@code task} sends (blocking). */
  public Object read(int task) throws IOException {
    return peer(task).read();
  }

  /** Sends {@code o} (null allowed) to task {@code task}. */
  public void write(int task, Object o) throws IOException {
    peer(task).write(o);
  }

  /** A task's connection; an IOException when it never connected (its job ended first). */
  private Peer peer(int task) throws IOException {
    Peer p = peers[task];
    if (p == null) {
      throw new IOException(owner + ": " + what + " " + task + "'s task never reached the hub");
    }
    return p;
  }

  /** Closes the hub and its connections (a task still waiting on one then fails). */
  @Override
  public void close() {
    for (Peer p : peers) {
      if (p != null) {
        p.close();
      }
    }
    try {
      server.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  /** A task's end: objects to and from the driver. */
  public static final class Link implements Closeable {
    private final Peer peer;

    /**
     * Connects task {@code task} to the hub at {@code to}.
     *
     * @param owner who runs the loop, for errors
     * @param what what the task holds, for errors
     */
    public Link(Address to, int task, String owner, String what) {
      try {
        Socket s = new Socket(to.host(), to.port());
        DataOutputStream hello = new DataOutputStream(s.getOutputStream());
        hello.writeLong(to.token());
        hello.writeInt(task);
        hello.flush();
        peer = new Peer(s);
      } catch (IOException e) {
        throw new UncheckedIOException(owner + ": " + what + " " + task + " cannot reach the "
            + "driver's hub at " + to.host() + ":" + to.port() + ": " + e.getMessage(), e);
      }
    }

    public void write(Object o) throws IOException {
      peer.write(o);
    }

    /** The address this end reaches the driver from (one other tasks can likely reach too). */
    public InetAddress localAddress() {
      return peer.socket.getLocalAddress();
    }

    public Object read() throws IOException {
      return peer.read();
    }

    @Override
    public void close() {
      peer.close();
    }
  }

  /**
   * Readies a connection of a loop: no delay for small frames, and TCP keepalive probes after
   * 30 s of silence (every 10 s, 6 unanswered: the connection fails), so that a peer whose host
   * vanished without closing its sockets (a network split, a machine lost) fails the loop within
   * about a minute and a half instead of leaving its tasks waiting. The probes are answered by
   * the peer's kernel, so a task busy for long is never taken for lost.
   */
  static void ready(Socket s) throws IOException {
    s.setTcpNoDelay(true);
    s.setKeepAlive(true);
    try {
      if (s.supportedOptions().contains(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE)) {
        s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 30);
        s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 10);
        s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 6);
      }
    } catch (LinkageError | UnsupportedOperationException e) {
      // a runtime without the jdk.net module: the system's keepalive times
    }
  }

  /** What the loops send; anything else is refused. */
  private static final ObjectInputFilter ALLOWED = ObjectInputFilter.Config.createFilter(
      "io.gstm.**;java.lang.*;java.util.*;[D;[J;[I;maxdepth=20;!*");

  /** One connection, objects both ways. */
  private static final class Peer implements Closeable {
    private final Socket socket;
    private final ObjectOutputStream out;
    private ObjectInputStream in;

    Peer(Socket socket) throws IOException {
      this.socket = socket;
      ready(socket);
      out = new ObjectOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
      out.flush();
    }

    void write(Object o) throws IOException {
      out.reset(); // no back-references to earlier steps' arrays
      out.writeObject(o);
      out.flush();
    }

    Object read() throws IOException {
      if (in == null) {
        in = new ObjectInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        in.setObjectInputFilter(ALLOWED);
      }
      try {
        return in.readObject();
      } catch (ClassNotFoundException e) {
        throw new IOException(e);
      }
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
