package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Set;
import java.util.TreeSet;

/** Counters of one superstep, summed over partitions. */
@DefaultSerializer(JavaSerializer.class)
final class StepStats implements Serializable {
  private static final long serialVersionUID = 2L;

  long activePartitions;
  long activeVertices;
  long messages;
  long rounds;
  long transactions;
  long commits;
  long aborts;
  long edgeRelaxations;
  long improvedWrites;
  long kernelNanos;
  long relaxNanos;
  boolean fellBack;
  /** The subgraphs' vertices and edges (set by the first superstep). */
  long vertices;
  long edges;
  final Set<String> engines = new TreeSet<>();

  StepStats merge(StepStats o) {
    StepStats s = new StepStats();
    s.activePartitions = activePartitions + o.activePartitions;
    s.activeVertices = activeVertices + o.activeVertices;
    s.messages = messages + o.messages;
    s.rounds = Math.max(rounds, o.rounds);
    s.transactions = transactions + o.transactions;
    s.commits = commits + o.commits;
    s.aborts = aborts + o.aborts;
    s.edgeRelaxations = edgeRelaxations + o.edgeRelaxations;
    s.improvedWrites = improvedWrites + o.improvedWrites;
    s.kernelNanos = kernelNanos + o.kernelNanos;
    s.relaxNanos = relaxNanos + o.relaxNanos;
    s.fellBack = fellBack || o.fellBack;
    s.vertices = vertices + o.vertices;
    s.edges = edges + o.edges;
    s.engines.addAll(engines);
    s.engines.addAll(o.engines);
    return s;
  }
}
