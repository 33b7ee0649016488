package io.gstm.spark.ml;

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

/**
 * Every iteration of a fit over several point sets inside one Spark stage: the point sets'
 * tasks stay running and trade each iteration's partials for the next centroids with the driver
 * over a socket of its own ({@link Hub}), instead of one Spark job per iteration (about 75 ms each
 * on a two-executor standalone cluster, longer than a GPU's iteration on 50 M points). Only the
 * k partial sums and counts cross, a few KB an iteration. A task reaches the hub through its
 * {@link Address}; the hub takes only connections that present the fit's random token.
 */
final class CentroidExchange {
  private CentroidExchange() {}

  /** Where the tasks of a fit find its hub, and the token they show it. */
  record Address(String host, int port, long token) implements Serializable {}

  /** The driver's end: takes one connection per point set, merges partials, hands out centroids. */
  static final class Hub implements Closeable {
    private final ServerSocket server;
    private final Address address;
    private final Peer[] peers;

    /** A hub for {@code sets} point-set tasks, listening on {@code host} (the driver's). */
    Hub(String host, int sets) {
      this(host, host, sets);
    }

    /**
     * A hub listening on {@code bind} (Spark's {@code spark.driver.bindAddress}) that the tasks
     * reach at {@code host} ({@code spark.driver.host}): the two differ behind a NAT or in a pod.
     */
    Hub(String bind, String host, int sets) {
      try {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName(bind), 0));
        server.setSoTimeout(200);
      } catch (IOException e) {
        throw new UncheckedIOException("TxKMeans: cannot listen on the driver's address " + bind
            + " for the point sets' tasks: " + e.getMessage(), e);
      }
      address = new Address(host, server.getLocalPort(), new SecureRandom().nextLong());
      peers = new Peer[sets];
    }

    Address address() {
      return address;
    }

    /**
     * Waits until every point set's task has connected, or the job has ended (its failure then
     * rethrown by the caller), or {@code timeoutMillis} have passed.
     *
     * @throws IllegalStateException if not every task connected in time
     */
    void awaitAll(Future<?> job, long timeoutMillis) throws IOException {
      long deadline = System.currentTimeMillis() + timeoutMillis;
      int connected = 0;
      while (connected < peers.length) {
        if (job.isDone()) {
          return;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("TxKMeans: only " + connected + " of " + peers.length
              + " point sets' tasks started within " + timeoutMillis / 1000 + " s; every set "
              + "needs a free task slot on its executor at once (or use setPointSets"
              + "(\"partitions\"))");
        }
        Socket s;
        try {
          s = server.accept();
        } catch (SocketTimeoutException e) {
          continue;
        }
        // The hello is plain data: nothing is deserialized before the token is checked.
        int set = -1;
        try {
          s.setSoTimeout(10_000);
          DataInputStream hello = new DataInputStream(s.getInputStream());
          if (hello.readLong() == address.token()) {
            set = hello.readInt();
          }
          s.setSoTimeout(0);
        } catch (IOException e) {
          set = -1;
        }
        if (set < 0 || set >= peers.length || peers[set] != null) {
          s.close(); // not one of this fit's tasks
          continue;
        }
        peers[set] = new Peer(s);
        connected++;
      }
    }

    /** Every set's partial of this iteration, merged in set order. */
    TxKMeans.Partial gather() throws IOException {
      TxKMeans.Partial total = null;
      for (Peer p : peers) {
        TxKMeans.Partial partial = (TxKMeans.Partial) p.read();
        total = total == null ? partial : TxKMeans.Partial.merge(total, partial);
      }
      return total;
    }

    /** Sends the next iteration's centroids, or null: stop. */
    void scatter(double[] centroids) throws IOException {
      for (Peer p : peers) {
        p.write(centroids);
      }
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
  }

  /** A task's end: sends its partials, receives centroids. */
  static final class Link implements Closeable {
    private final Peer peer;

    /** Connects point set {@code set}'s task to the hub at {@code to}. */
    Link(Address to, int set) {
      try {
        Socket s = new Socket(to.host(), to.port());
        DataOutputStream hello = new DataOutputStream(s.getOutputStream());
        hello.writeLong(to.token());
        hello.writeInt(set);
        hello.flush();
        peer = new Peer(s);
      } catch (IOException e) {
        throw new UncheckedIOException("TxKMeans: point set " + set + " cannot reach the "
            + "driver's hub at " + to.host() + ":" + to.port() + ": " + e.getMessage(), e);
      }
    }

    /** Sends this iteration's partial; the next centroids, or null when the fit is done. */
    double[] exchange(TxKMeans.Partial partial) throws IOException {
      peer.write(partial);
      return (double[]) peer.read();
    }

    @Override
    public void close() {
      peer.close();
    }
  }

  /** What a partial or a centroid array is made of; anything else is refused. */
  private static final ObjectInputFilter ALLOWED = ObjectInputFilter.Config.createFilter(
      "io.gstm.**;java.lang.*;java.util.*;[D;[J;maxdepth=20;!*");

  /** One connection, objects both ways. */
  private static final class Peer implements Closeable {
    private final Socket socket;
    private final ObjectOutputStream out;
    private ObjectInputStream in;

    Peer(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      out = new ObjectOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      out.flush();
    }

    void write(Object o) throws IOException {
      out.reset(); // no back-references to earlier iterations' arrays
      out.writeObject(o);
      out.flush();
    }

    Object read() throws IOException {
      if (in == null) {
        in = new ObjectInputStream(new BufferedInputStream(socket.getInputStream()));
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
